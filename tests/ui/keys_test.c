/*
 * The key table: every command reachable by a key, no key bound twice in
 * one context, lookups falling back from pane to list to global, and the
 * help/man text generated from the same table.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "keys.h"

static void
test_commands_complete(void **state)
{
	(void)state;
	for (int c = 1; c < CMD_COUNT; c++) {
		bool bound = false;
		assert_int_equal(commands[c].cmd, c);
		assert_non_null(commands[c].name);
		assert_true(strlen(commands[c].help) > 5);
		assert_int_equal(command_by_name(commands[c].name), c);
		for (size_t i = 0; i < nbindings; i++)
			bound |= bindings[i].cmd == (enum cmd)c;
		if (!bound)
			fail_msg("command %s has no key", commands[c].name);
	}
	assert_int_equal(command_by_name("no-such-command"), CMD_NONE);
}

/* The table holds the handler: every command bound everywhere has one
 * (it runs whatever the pane), and a command bound only in one pane has
 * none (the pane takes it). */
static void
test_commands_have_handlers(void **state)
{
	(void)state;
	for (int c = 1; c < CMD_COUNT; c++) {
		bool global = false, pane = false;
		for (size_t i = 0; i < nbindings; i++) {
			if (bindings[i].cmd != (enum cmd)c)
				continue;
			if (bindings[i].ctx == CTX_GLOBAL)
				global = true;
			else
				pane = true;
		}
		if (global && commands[c].run == NULL)
			fail_msg("global command %s has no handler",
			    commands[c].name);
		if (pane && !global && commands[c].run != NULL &&
		    c != CMD_PANE_TIMELINE && c != CMD_SEARCH)
			fail_msg("pane command %s has a global handler",
			    commands[c].name);
	}
}

static void
test_no_duplicate_keys(void **state)
{
	(void)state;
	for (size_t i = 0; i < nbindings; i++)
		for (size_t j = i + 1; j < nbindings; j++)
			if (bindings[i].ctx == bindings[j].ctx &&
			    bindings[i].key == bindings[j].key)
				fail_msg("key %d bound twice in context %d",
				    bindings[i].key, bindings[i].ctx);
}

static void
test_lookup_fallback(void **state)
{
	(void)state;
	/* Pane keys first... */
	assert_int_equal(keys_lookup(CTX_TIMELINE, 'j'), CMD_SLICE_CHILD);
	assert_int_equal(keys_lookup(CTX_FLAME, 'j'), CMD_FLAME_DOWN);
	/* ...then the list keys for list panes... */
	assert_int_equal(keys_lookup(CTX_FUNCTIONS, 'j'), CMD_LIST_DOWN);
	assert_int_equal(keys_lookup(CTX_FUNCTIONS, TK_ENTER), CMD_LIST_ENTER);
	assert_int_equal(keys_lookup(CTX_FUNCTIONS, 's'), CMD_SORT_NEXT);
	/* ...but not for the timeline... */
	assert_int_equal(keys_lookup(CTX_TIMELINE, TK_HOME), CMD_NONE);
	/* ...then global keys. */
	assert_int_equal(keys_lookup(CTX_TIMELINE, 'q'), CMD_QUIT);
	assert_int_equal(keys_lookup(CTX_HELP, 'q'), CMD_CLOSE);
	assert_int_equal(keys_lookup(CTX_FUNCTIONS, '/'), CMD_SEARCH);
	assert_int_equal(keys_lookup(CTX_THREADS, ' '), CMD_THREAD_TOGGLE);
	assert_int_equal(keys_lookup(CTX_TIMELINE, 0x7fff), CMD_NONE);
}

static void
test_key_names(void **state)
{
	char buf[32], keys[96];

	(void)state;
	assert_string_equal(keys_name('q', buf, sizeof buf), "q");
	assert_string_equal(keys_name(' ', buf, sizeof buf), "Space");
	assert_string_equal(keys_name(TK_CTRL('L'), buf, sizeof buf), "Ctrl-L");
	assert_string_equal(keys_name(TK_LEFT, buf, sizeof buf), "Left");
	assert_string_equal(keys_name(TK_ENTER, buf, sizeof buf), "Enter");
	assert_string_equal(keys_for(CTX_TIMELINE, CMD_SLICE_PREV, keys,
	    sizeof keys), "h, Left");
	assert_string_equal(keys_for(CTX_GLOBAL, CMD_ZOOM_IN, keys,
	    sizeof keys), "+, =, i");
}

static void
test_man_from_table(void **state)
{
	char *text = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&text, &len);

	(void)state;
	keys_write_man(fp);
	fclose(fp);
	/* Every context has a section and every command its line. */
	for (int ctx = 0; ctx < CTX_COUNT; ctx++) {
		char title[96];
		snprintf(title, sizeof title, ".SS %s\n",
		    keys_ctx_title((enum key_ctx)ctx));
		if (keys_ctx_used((enum key_ctx)ctx))
			assert_non_null(strstr(text, title));
		else	/* no empty sections */
			assert_null(strstr(text, title));
	}
	assert_non_null(strstr(text, ".SS Thread filter\n.TP\n.B Enter\n"
	    "timeline pane"));
	assert_non_null(strstr(text, ".TP\n.B h, Left\nprevious slice"));
	/* Roff specials are escaped: the backslash key and the quote. */
	assert_non_null(strstr(text, ".B \\e\n"));
	assert_non_null(strstr(text, ".B \\(aq\n"));
	assert_null(strstr(text, "\n'"));
	free(text);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_commands_complete),
		cmocka_unit_test(test_commands_have_handlers),
		cmocka_unit_test(test_no_duplicate_keys),
		cmocka_unit_test(test_lookup_fallback),
		cmocka_unit_test(test_key_names),
		cmocka_unit_test(test_man_from_table),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
