/*
 * Screen tests of the real ttv binary: runs it in a pseudo-terminal, feeds
 * its output to a terminal emulator (libvterm) and checks what a person
 * would see. A small script language drives it (tests/ui/README):
 *
 *   size 80 24            env NAME=VALUE        start ARGS...
 *   key j                 type TEXT             resize 120 30
 *   wait TEXT             expect ROW TEXT       expect_not TEXT
 *   screen NAME           attrs NAME            cell ROW COL ATTRS
 *   find TEXT|ATTRS       nocontrol             bytes_max N
 *   bytes_save            bytes_max_saved       dump
 *   quit                  bench N KEY...   (latency and bytes per key)
 *   limit MIB             killed SIG
 *
 * No sleeping: with TTV_TEST_SENTINEL set, ttv writes an OSC sequence that
 * terminals ignore after every frame, carrying the number of keys it has
 * handled; after sending a key the driver waits for that number.
 *
 *   ui_screen SCRIPT      run a script (UPDATE_GOLDEN=1 rewrites goldens)
 *   ui_screen --make-fxt FILE   write the test trace (escape sequences
 *                               in names, dense regions, wide characters)
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <vterm.h>
#include "xalloc.h"

/* Long enough for a loaded machine; UI_TIMEOUT_MS raises it for big
 * traces (bench/ui.sh). */
static long wait_limit_ms = 10000;
#define TIMEOUT_MS wait_limit_ms
#define SENTINEL "\033]7777;ttv-frame;"

/* Sanitizers reserve terabytes of address space: no limit there. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SANITIZED 1
#endif
#endif

static const char *script_path;
static long limit_mib;		/* address space of ttv (0: none) */
static int script_line;
static int rows = 24, cols = 80;
static VTerm *vt;
static VTermScreen *vs;
static int master = -1;
static pid_t child = -1;
static long frame = -1;		/* last sentinel seen */
static long keys_sent;
static char tail[64];		/* last bytes, for sentinels cut in two */
static long long stream_pos;	/* bytes read from ttv so far */
static long long frame_end;	/* stream_pos just after the last sentinel */
static size_t tail_len;
static size_t bytes_since_key, bytes_last_key, bytes_saved;
static char *envs[32];
static int nenv;
static char *raw_log;		/* everything ttv wrote, for the quit checks */
static size_t raw_len, raw_cap;
static int failures;

static void
die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s:%d: ", script_path ? script_path : "ui_screen",
	    script_line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	if (child > 0)
		kill(child, SIGKILL);
	exit(1);
}

/* ---------------------------------------------------------- screen text */

static char *
row_text(int r)
{
	static char buf[4096];
	size_t n = 0, keep = 0;

	for (int c = 0; c < cols; c++) {
		VTermScreenCell cell;
		VTermPos pos = { r, c };
		uint32_t ch;

		vterm_screen_get_cell(vs, pos, &cell);
		ch = cell.chars[0];
		if (ch == (uint32_t)-1)
			continue;	/* right half of a wide character */
		if (ch == 0)
			ch = ' ';
		if (n + 8 > sizeof buf)
			break;
		if (ch < 0x80)
			buf[n++] = (char)ch;
		else if (ch < 0x800) {
			buf[n++] = (char)(0xc0 | (ch >> 6));
			buf[n++] = (char)(0x80 | (ch & 0x3f));
		} else if (ch < 0x10000) {
			buf[n++] = (char)(0xe0 | (ch >> 12));
			buf[n++] = (char)(0x80 | ((ch >> 6) & 0x3f));
			buf[n++] = (char)(0x80 | (ch & 0x3f));
		} else {
			buf[n++] = (char)(0xf0 | (ch >> 18));
			buf[n++] = (char)(0x80 | ((ch >> 12) & 0x3f));
			buf[n++] = (char)(0x80 | ((ch >> 6) & 0x3f));
			buf[n++] = (char)(0x80 | (ch & 0x3f));
		}
		if (ch != ' ')
			keep = n;
		if (cell.width == 2)
			c++;
	}
	buf[keep] = '\0';
	return buf;
}

static char *
screen_text(void)
{
	size_t cap = (size_t)rows * ((size_t)cols * 4 + 1) + 1, n = 0;
	char *s = malloc(cap);

	for (int r = 0; r < rows; r++)
		n += (size_t)snprintf(s + n, cap - n, "%s\n", row_text(r));
	return s;
}

/* One hex digit per cell: 1 bold, 2 underline, 4 reverse, 8 coloured
 * background; trailing zeros dropped. */
static int
cell_code(int r, int c)
{
	VTermScreenCell cell;
	VTermPos pos = { r, c };
	int code = 0;

	vterm_screen_get_cell(vs, pos, &cell);
	if (cell.attrs.bold)
		code |= 1;
	if (cell.attrs.underline)
		code |= 2;
	if (cell.attrs.reverse)
		code |= 4;
	if (!VTERM_COLOR_IS_DEFAULT_BG(&cell.bg))
		code |= 8;
	return code;
}

static char *
attr_text(void)
{
	size_t cap = (size_t)rows * ((size_t)cols + 1) + 1, n = 0;
	char *s = malloc(cap);

	for (int r = 0; r < rows; r++) {
		size_t start = n, keep = n;
		for (int c = 0; c < cols; c++) {
			int code = cell_code(r, c);
			s[n++] = "0123456789abcdef"[code];
			if (code)
				keep = n;
		}
		n = keep > start ? keep : start;
		s[n++] = '\n';
	}
	s[n] = '\0';
	return s;
}

static void
dump_screen(void)
{
	char *s = screen_text();

	fprintf(stderr, "---- screen (%dx%d) ----\n%s------------------------\n",
	    cols, rows, s);
	free(s);
}

static void
fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s:%d: FAIL: ", script_path, script_line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	dump_screen();
	failures++;
}

/* ------------------------------------------------------------ the pty */

static void
scan_sentinels(const char *buf, size_t n)
{
	/* Sentinels may straddle reads: look at the tail plus the new
	 * bytes. */
	char win[sizeof tail + 4096];
	size_t wn = 0;

	while (n > 0) {
		size_t take = n > 4096 ? 4096 : n;
		long long base = stream_pos - (long long)tail_len;
		memcpy(win, tail, tail_len);
		memcpy(win + tail_len, buf, take);
		wn = tail_len + take;
		for (char *p = memmem(win, wn, SENTINEL, strlen(SENTINEL)); p;
		    p = memmem(p + 1, wn - (size_t)(p + 1 - win), SENTINEL,
		    strlen(SENTINEL))) {
			char *q = p + strlen(SENTINEL);
			long v = 0;
			bool digits = false;
			while (q < win + wn && isdigit((unsigned char)*q))
				v = v * 10 + (*q++ - '0'), digits = true;
			if (digits && q < win + wn && *q == '\a') {
				if (v > frame)
					frame = v;
				if (base + (q + 1 - win) > frame_end)
					frame_end = base + (q + 1 - win);
			}
		}
		tail_len = wn > sizeof tail ? sizeof tail : wn;
		memmove(tail, win + wn - tail_len, tail_len);
		buf += take;
		n -= take;
		stream_pos += (long long)take;
	}
}

static void
output_cb(const char *s, size_t len, void *user)
{
	(void)user;
	/* Answers of the emulator to queries go back to the program. */
	if (master >= 0 && write(master, s, len) < 0) {
		/* the program is gone; the next read says so */
	}
}

/* Reads what is there within timeout_ms; false at EOF. */
static bool
pump(int timeout_ms)
{
	struct pollfd p = { master, POLLIN, 0 };
	char buf[8192];
	ssize_t n;

	if (poll(&p, 1, timeout_ms) <= 0)
		return true;
	n = read(master, buf, sizeof buf);
	if (n <= 0)
		return false;
	if (raw_len + (size_t)n > raw_cap) {
		raw_cap = (raw_len + (size_t)n) * 2;
		raw_log = realloc(raw_log, raw_cap);
	}
	memcpy(raw_log + raw_len, buf, (size_t)n);
	raw_len += (size_t)n;
	bytes_since_key += (size_t)n;
	scan_sentinels(buf, (size_t)n);
	vterm_input_write(vt, buf, (size_t)n);
	return true;
}

static long
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void
wait_frame(long want)
{
	long deadline = now_ms() + TIMEOUT_MS;

	while (frame < want || frame_end != stream_pos) {
		if (now_ms() > deadline) {
			dump_screen();
			die("timed out waiting for frame %ld (last %ld)", want,
			    frame);
		}
		if (!pump(100))
			die("ttv exited while waiting for frame %ld", want);
	}
}

static void
send_bytes(const char *s, size_t n)
{
	bytes_last_key = bytes_since_key;
	bytes_since_key = 0;
	if (write(master, s, n) != (ssize_t)n)
		die("write to pty: %s", strerror(errno));
	keys_sent++;
	wait_frame(keys_sent);
	bytes_last_key = bytes_since_key;
}

/* Special keys are encoded by the emulator, so they follow the modes
 * ncurses set (application cursor keys after smkx). */
static const struct {
	const char *name;
	VTermKey key;
	VTermModifier mod;
} keynames[] = {
	{ "<Up>", VTERM_KEY_UP, VTERM_MOD_NONE },
	{ "<Down>", VTERM_KEY_DOWN, VTERM_MOD_NONE },
	{ "<Right>", VTERM_KEY_RIGHT, VTERM_MOD_NONE },
	{ "<Left>", VTERM_KEY_LEFT, VTERM_MOD_NONE },
	{ "<Home>", VTERM_KEY_HOME, VTERM_MOD_NONE },
	{ "<End>", VTERM_KEY_END, VTERM_MOD_NONE },
	{ "<PgUp>", VTERM_KEY_PAGEUP, VTERM_MOD_NONE },
	{ "<PgDn>", VTERM_KEY_PAGEDOWN, VTERM_MOD_NONE },
	{ "<S-Left>", VTERM_KEY_LEFT, VTERM_MOD_SHIFT },
	{ "<S-Right>", VTERM_KEY_RIGHT, VTERM_MOD_SHIFT },
	{ "<Enter>", VTERM_KEY_ENTER, VTERM_MOD_NONE },
	{ "<Esc>", VTERM_KEY_ESCAPE, VTERM_MOD_NONE },
	{ "<Tab>", VTERM_KEY_TAB, VTERM_MOD_NONE },
	{ "<BTab>", VTERM_KEY_TAB, VTERM_MOD_SHIFT },
	{ "<BS>", VTERM_KEY_BACKSPACE, VTERM_MOD_NONE },
	{ "<F1>", VTERM_KEY_FUNCTION(1), VTERM_MOD_NONE },
};

static void
send_key(const char *k)
{
	if (strcmp(k, "<Space>") == 0)
		k = " ";
	if (k[0] == '<' && strlen(k) > 2) {
		for (size_t i = 0; i < sizeof keynames / sizeof keynames[0]; i++)
			if (strcmp(keynames[i].name, k) == 0) {
				bytes_since_key = 0;
				vterm_keyboard_key(vt, keynames[i].key,
				    keynames[i].mod);
				keys_sent++;
				wait_frame(keys_sent);
				bytes_last_key = bytes_since_key;
				return;
			}
		int mr, mc;
		char what[16];
		if (sscanf(k, "<%15[A-Za-z]:%d,%d>", what, &mr, &mc) == 3) {
			/* Mouse: the emulator encodes it in the mode ncurses
			 * asked for; one press (and its release) is one
			 * event for ttv. */
			int button = strcmp(what, "Click") == 0 ? 1 :
			    strcmp(what, "WheelUp") == 0 ? 4 :
			    strcmp(what, "WheelDown") == 0 ? 5 : 0;
			if (button == 0)
				die("unknown mouse key %s", k);
			bytes_since_key = 0;
			vterm_mouse_move(vt, mr, mc, VTERM_MOD_NONE);
			vterm_mouse_button(vt, button, true, VTERM_MOD_NONE);
			if (button == 1)
				vterm_mouse_button(vt, button, false,
				    VTERM_MOD_NONE);
			keys_sent++;
			wait_frame(keys_sent);
			bytes_last_key = bytes_since_key;
			return;
		}
		if (strncmp(k, "<C-", 3) == 0 && strlen(k) == 5) {
			char c = (char)(toupper((unsigned char)k[3]) & 0x1f);
			send_bytes(&c, 1);
			return;
		}
		die("unknown key %s", k);
	}
	send_bytes(k, strlen(k));	/* one character, maybe UTF-8 */
}

/* Types text one character (one key) at a time. */
static void
type_text(const char *s)
{
	while (*s != '\0') {
		size_t n = 1;
		unsigned char c = (unsigned char)*s;
		if (c >= 0xc0)
			while ((s[n] & 0xc0) == 0x80)
				n++;
		send_bytes(s, n);
		s += n;
	}
}

static void
start(char *args, bool refused)
{
	const char *ttv = getenv("TTV");
	char *argv[32];
	bool owned[32] = { false };	/* argv[i] was allocated here */
	int argc = 0;
	struct winsize ws = { (unsigned short)rows, (unsigned short)cols, 0, 0 };

	if (ttv == NULL)
		die("TTV is not set");
	argv[argc++] = (char *)ttv;
	for (char *tok = strtok(args, " "); tok && argc < 31;
	    tok = strtok(NULL, " ")) {
		/* $TTV_SRCDIR and friends in arguments. */
		if (tok[0] == '$') {
			char *slash = strchr(tok, '/');
			char name[64];
			size_t len = slash ? (size_t)(slash - tok - 1) :
			    strlen(tok + 1);
			snprintf(name, sizeof name, "%.*s", (int)len, tok + 1);
			const char *val = getenv(name);
			if (val == NULL)
				die("%s is not set", name);
			owned[argc] = true;
			if (asprintf(&argv[argc++], "%s%s", val,
			    slash ? slash : "") < 0)
				die("out of memory");
		} else
			argv[argc++] = tok;
	}
	argv[argc] = NULL;
	/* A script may start ttv several times: one terminal each. */
	if (vt != NULL)
		vterm_free(vt);
	vt = vterm_new(rows, cols);
	vterm_set_utf8(vt, 1);
	vterm_output_set_callback(vt, output_cb, NULL);
	vs = vterm_obtain_screen(vt);
	vterm_screen_enable_altscreen(vs, 1);
	vterm_screen_reset(vs, 1);
	child = forkpty(&master, NULL, NULL, &ws);
	if (child < 0)
		die("forkpty: %s", strerror(errno));
	if (child == 0) {
		/* Pinned so screens do not depend on who runs the test. */
		unsetenv("LINES");
		unsetenv("COLUMNS");
		unsetenv("NO_COLOR");
		setenv("TERM", "xterm-256color", 1);
		setenv("LANG", "C.UTF-8", 1);
		unsetenv("LC_ALL");
		unsetenv("LC_CTYPE");
		setenv("TZ", "UTC", 1);
		setenv("ESCDELAY", "25", 1);
		setenv("TTV_TEST_SENTINEL", "1", 1);
		for (int i = 0; i < nenv; i++)
			putenv(envs[i]);
		/* no core files from the scripts that kill ttv */
		struct rlimit core = { 0, 0 };
		setrlimit(RLIMIT_CORE, &core);
#ifndef SANITIZED
		if (limit_mib > 0) {
			struct rlimit rl;
			rl.rlim_cur = rl.rlim_max = (rlim_t)limit_mib << 20;
			setrlimit(RLIMIT_AS, &rl);
		}
#endif
		execv(ttv, argv);
		_exit(127);
	}
	for (int i = 0; i < argc; i++)
		if (owned[i])
			free(argv[i]);
	frame = -1;
	keys_sent = 0;
	if (!refused)
		wait_frame(0);
}

static void
do_resize(int c, int r)
{
	struct winsize ws = { (unsigned short)r, (unsigned short)c, 0, 0 };

	rows = r;
	cols = c;
	vterm_set_size(vt, rows, cols);
	if (ioctl(master, TIOCSWINSZ, &ws) != 0)
		die("TIOCSWINSZ: %s", strerror(errno));
	/* The ioctl sends SIGWINCH to ttv, which ncurses turns into one
	 * KEY_RESIZE. */
	keys_sent++;
	wait_frame(keys_sent);
}

/* Waits for ttv to end by itself (a trace refused before the panes
 * opened) and checks its exit status; the screen keeps what it wrote. */
static void
do_exited(int want)
{
	int status = 0;
	long deadline = now_ms() + TIMEOUT_MS;

	for (;;) {
		pump(50);
		if (waitpid(child, &status, WNOHANG) == child)
			break;
		if (now_ms() > deadline)
			die("ttv did not exit by itself");
	}
	while (pump(50))
		;
	child = -1;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != want)
		fail("ttv exited with status %d, want exit %d", status, want);
}

static void check_restored(void);

static void
do_quit(int want)
{
	int status = 0;
	long deadline;

	if (write(master, "q", 1) != 1)
		die("write: %s", strerror(errno));
	deadline = now_ms() + TIMEOUT_MS;
	while (pump(100)) {
		if (waitpid(child, &status, WNOHANG) == child) {
			while (pump(50))
				;
			goto exited;
		}
		if (now_ms() > deadline)
			die("ttv did not exit on q");
	}
	waitpid(child, &status, 0);
exited:
	child = -1;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != want)
		fail("ttv exited with status %d, want exit %d", status, want);
	check_restored();
}

/* The terminal is given back: alternate screen left, cursor shown,
 * mouse reports off, after the last frame. */
static void
check_restored(void)
{
	char *last = NULL;
	for (char *p = raw_log; p && (size_t)(p - raw_log) < raw_len;) {
		char *q = memmem(p, raw_len - (size_t)(p - raw_log), SENTINEL,
		    strlen(SENTINEL));
		if (q == NULL)
			break;
		last = q;
		p = q + 1;
	}
	if (last == NULL)
		last = raw_log;
	size_t rest = raw_len - (size_t)(last - raw_log);
	if (memmem(last, rest, "\033[?1049l", 8) == NULL)
		fail("alternate screen not left on exit");
	if (memmem(last, rest, "\033[?25h", 6) == NULL)
		fail("cursor not shown again on exit");
	/* ncurses sets the mouse modes together: \e[?1006;1000h */
	if ((memmem(raw_log, raw_len, "?1000h", 6) != NULL ||
	    memmem(raw_log, raw_len, ";1000h", 6) != NULL) &&
	    memmem(last, rest, "?1000l", 6) == NULL &&
	    memmem(last, rest, ";1000l", 6) == NULL)
		fail("mouse reports not turned off on exit");
	close(master);
	master = -1;
}

/* "killed SIG": the signal is sent to ttv, which must die of it (what
 * abort() or a crash does) with the terminal given back. */
static void
do_killed(const char *name)
{
	static const struct { const char *name; int sig; } sigs[] = {
		{ "ABRT", SIGABRT }, { "SEGV", SIGSEGV }, { "BUS", SIGBUS },
		{ "FPE", SIGFPE }, { "ILL", SIGILL }, { "QUIT", SIGQUIT },
	};
	int sig = 0, status = 0;
	long deadline = now_ms() + TIMEOUT_MS;

	for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
		if (strcmp(name, sigs[i].name) == 0)
			sig = sigs[i].sig;
	if (sig == 0)
		die("killed ABRT|SEGV|BUS|FPE|ILL|QUIT");
	kill(child, sig);
	while (waitpid(child, &status, WNOHANG) != child) {
		pump(50);
		if (now_ms() > deadline)
			die("ttv did not die of SIG%s", name);
	}
	while (pump(50))
		;
	child = -1;
	if (!WIFSIGNALED(status) || WTERMSIG(status) != sig)
		fail("ttv ended with status %d, not by SIG%s", status, name);
	check_restored();
}

/* --------------------------------------------------------------- checks */

static bool
screen_has(const char *text)
{
	for (int r = 0; r < rows; r++)
		if (strstr(row_text(r), text) != NULL)
			return true;
	return false;
}

static void
wait_text(const char *text)
{
	long deadline = now_ms() + TIMEOUT_MS;

	/* ttv has ended: the screen is what it left. */
	if (child < 0) {
		if (!screen_has(text))
			fail("'%s' is not on the screen ttv left", text);
		return;
	}
	/* Only whole frames count: ttv may be half way through one. */
	while (frame_end != stream_pos || !screen_has(text)) {
		if (now_ms() > deadline) {
			fail("'%s' never appeared", text);
			return;
		}
		if (!pump(50))
			die("ttv exited while waiting for '%s'", text);
	}
}

static char *
golden_path(const char *name)
{
	const char *src = getenv("TTV_SRCDIR");
	char *p;

	asprintf(&p, "%s/tests/ui/%s", src ? src : ".", name);
	return p;
}

static void
compare_golden(const char *name, char *got)
{
	char *path = golden_path(name), *want = NULL;
	size_t len = 0;
	FILE *fp;

	if (getenv("UPDATE_GOLDEN") != NULL) {
		fp = fopen(path, "w");
		if (fp == NULL)
			die("%s: %s", path, strerror(errno));
		fputs(got, fp);
		fclose(fp);
		free(path);
		return;
	}
	fp = fopen(path, "r");
	if (fp == NULL) {
		fail("%s: %s (UPDATE_GOLDEN=1 writes it)", path,
		    strerror(errno));
		free(path);
		return;
	}
	getdelim(&want, &len, '\0', fp);
	fclose(fp);
	if (want == NULL || strcmp(want, got) != 0) {
		fprintf(stderr, "---- expected %s ----\n%s", path,
		    want ? want : "");
		fprintf(stderr, "---- got ----\n%s", got);
		fail("screen differs from %s", name);
	}
	free(want);
	free(path);
}

static int
parse_attrs(const char *s)
{
	int code = 0;

	if (strstr(s, "bold"))
		code |= 1;
	if (strstr(s, "underline"))
		code |= 2;
	if (strstr(s, "reverse"))
		code |= 4;
	if (strstr(s, "colour"))
		code |= 8;
	return code;
}

/* The background's hue, whatever the palette: "red" and "blue" (the one
 * channel 24 above the two others), "grey" (the three within 16), and how
 * strong: "strong" (the channels 128 apart or more) or "light" (less than
 * 64). */
static void
check_hue(int r, int c, const char *want)
{
	static const char *const words[] = { "red", "blue", "grey", "strong",
	    "light" };
	VTermScreenCell cell;
	VTermPos pos = { r, c };
	bool any = false;

	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
		any |= strstr(want, words[i]) != NULL;
	if (!any)
		return;
	vterm_screen_get_cell(vs, pos, &cell);
	if (VTERM_COLOR_IS_DEFAULT_BG(&cell.bg)) {
		fail("cell %d,%d has no background colour, want %s", r, c, want);
		return;
	}
	VTermColor bg = cell.bg;
	vterm_screen_convert_color_to_rgb(vs, &bg);
	int red = bg.rgb.red, green = bg.rgb.green, blue = bg.rgb.blue;
	int hi = red > green ? red : green, lo = red < green ? red : green;
	hi = blue > hi ? blue : hi;
	lo = blue < lo ? blue : lo;
	bool ok = true;
	if (strstr(want, "red") != NULL)
		ok &= red >= green + 24 && red >= blue + 24;
	if (strstr(want, "blue") != NULL)
		ok &= blue >= red + 24 && blue >= green + 24;
	if (strstr(want, "grey") != NULL)
		ok &= hi - lo < 16;
	if (strstr(want, "strong") != NULL)
		ok &= hi - lo >= 128;
	if (strstr(want, "light") != NULL)
		ok &= hi - lo < 64;
	if (!ok)
		fail("cell %d,%d has background #%02x%02x%02x, want %s", r, c,
		    red, green, blue, want);
}

static void
check_cell(int r, int c, const char *want)
{
	int code = cell_code(r, c), need = parse_attrs(want);
	bool exact = strstr(want, "plain") != NULL;

	if (exact ? code != 0 : (code & need) != need)
		fail("cell %d,%d has attributes %x, want %s", r, c, code, want);
	if (strstr(want, "rgb") != NULL) {
		/* A 24-bit background, not a palette index. */
		VTermScreenCell cell;
		VTermPos pos = { r, c };
		vterm_screen_get_cell(vs, pos, &cell);
		if (!VTERM_COLOR_IS_RGB(&cell.bg))
			fail("cell %d,%d has no RGB background", r, c);
	}
	check_hue(r, c, want);
}

static void
find_text(const char *text, const char *want)
{
	for (int r = 0; r < rows; r++) {
		char *row = row_text(r), *p = strstr(row, text);
		if (p == NULL)
			continue;
		/* Column of p: count characters before it. */
		int c = 0;
		for (char *q = row; q < p; q++)
			if (((unsigned char)*q & 0xc0) != 0x80)
				c++;
		check_cell(r, c, want);
		return;
	}
	fail("'%s' not on screen", text);
}

static void
no_controls(void)
{
	for (int r = 0; r < rows; r++)
		for (int c = 0; c < cols; c++) {
			VTermScreenCell cell;
			VTermPos pos = { r, c };
			vterm_screen_get_cell(vs, pos, &cell);
			for (int i = 0; i < VTERM_MAX_CHARS_PER_CELL &&
			    cell.chars[i] != 0; i++) {
				uint32_t ch = cell.chars[i];
				if (ch == (uint32_t)-1)
					break;
				if (ch < 0x20 || (ch >= 0x7f && ch < 0xa0))
					fail("control character %#x at %d,%d",
					    ch, r, c);
			}
		}
	/* And the trace's own title-setting sequence never reached the
	 * terminal. */
	if (memmem(raw_log, raw_len, "\033]0;", 4) != NULL)
		fail("a raw OSC title sequence reached the terminal");
	if (memmem(raw_log, raw_len, "\033[2Jboom", 8) != NULL)
		fail("a raw clear-screen sequence reached the terminal");
	if (memmem(raw_log, raw_len, "\033[31mred", 8) != NULL)
		fail("a raw SGR sequence from the trace reached the terminal");
}

/* ------------------------------------------------------------ the trace */

static void
w64(FILE *fp, uint64_t v)
{
	unsigned char b[8];

	for (int i = 0; i < 8; i++)
		b[i] = (unsigned char)(v >> (8 * i));
	fwrite(b, 1, 8, fp);
}

static size_t
pad8(size_t n)
{
	return (n + 7) / 8 * 8;
}

static void
wstr(FILE *fp, const char *s)
{
	size_t n = strlen(s), p = pad8(n);

	fwrite(s, 1, n, fp);
	for (size_t i = n; i < p; i++)
		fputc(0, fp);
}

/* An FXT complete-duration event with inline thread and strings. */
static void
fxt_complete(FILE *fp, uint64_t pid, uint64_t tid, const char *name,
    uint64_t start, uint64_t end)
{
	const char *cat = "test";
	uint64_t words = 1 + 1 + 2 + pad8(strlen(cat)) / 8 +
	    pad8(strlen(name)) / 8 + 1;
	uint64_t hdr = 4 | (words << 4) | (4ull << 16) |
	    ((0x8000ull | strlen(cat)) << 32) |
	    ((0x8000ull | strlen(name)) << 48);

	w64(fp, hdr);
	w64(fp, start);
	w64(fp, pid);
	w64(fp, tid);
	wstr(fp, cat);
	wstr(fp, name);
	w64(fp, end);
}

/* An FXT instant event, same layout without the end time. */
static void
fxt_instant(FILE *fp, uint64_t pid, uint64_t tid, const char *name,
    uint64_t t)
{
	const char *cat = "test";
	uint64_t words = 1 + 1 + 2 + pad8(strlen(cat)) / 8 +
	    pad8(strlen(name)) / 8;
	uint64_t hdr = 4 | (words << 4) | (0ull << 16) |
	    ((0x8000ull | strlen(cat)) << 32) |
	    ((0x8000ull | strlen(name)) << 48);

	w64(fp, hdr);
	w64(fp, t);
	w64(fp, pid);
	w64(fp, tid);
	wstr(fp, cat);
	wstr(fp, name);
}

/* An FXT counter event: one int64 argument, then the counter id. */
static void
fxt_counter(FILE *fp, uint64_t pid, uint64_t tid, const char *name,
    const char *arg, int64_t value, uint64_t t)
{
	const char *cat = "test";
	uint64_t awords = 1 + pad8(strlen(arg)) / 8 + 1;
	uint64_t words = 1 + 1 + 2 + pad8(strlen(cat)) / 8 +
	    pad8(strlen(name)) / 8 + awords + 1;
	uint64_t hdr = 4 | (words << 4) | (1ull << 16) | (1ull << 20) |
	    ((0x8000ull | strlen(cat)) << 32) |
	    ((0x8000ull | strlen(name)) << 48);

	w64(fp, hdr);
	w64(fp, t);
	w64(fp, pid);
	w64(fp, tid);
	wstr(fp, cat);
	wstr(fp, name);
	/* int64 argument: type 3, size, inline name. */
	w64(fp, 3 | (awords << 4) | ((0x8000ull | strlen(arg)) << 16));
	wstr(fp, arg);
	w64(fp, (uint64_t)value);
	w64(fp, 1);		/* counter id */
}

static void
fxt_thread_name(FILE *fp, uint64_t tid, const char *name)
{
	uint64_t words = 1 + 1 + pad8(strlen(name)) / 8;
	uint64_t hdr = 7 | (words << 4) | (2ull << 16) |
	    ((0x8000ull | strlen(name)) << 24);

	w64(fp, hdr);
	w64(fp, tid);
	wstr(fp, name);
}

static int
make_fxt(const char *path)
{
	FILE *fp = fopen(path, "wb");

	if (fp == NULL) {
		perror(path);
		return 1;
	}
	w64(fp, 0x0016547846040010ull);		/* magic */
	w64(fp, 1 | (2 << 4));			/* initialization */
	w64(fp, 1000000000);			/* ticks per second */
	fxt_thread_name(fp, 101, "main-thread");
	fxt_thread_name(fp, 102, "evil\033]0;pwned\007thread");
	/* Thread 101: main > parse > 2000 tiny tok, main > render > draw. */
	fxt_complete(fp, 100, 101, "main", 0, 1000000);
	fxt_complete(fp, 100, 101, "parse", 100000, 400000);
	for (int i = 0; i < 2000; i++)
		fxt_complete(fp, 100, 101, "tok", 100000 + 100 * (uint64_t)i,
		    100000 + 100 * (uint64_t)i + 50);
	fxt_complete(fp, 100, 101, "render", 500000, 900000);
	fxt_complete(fp, 100, 101, "draw_\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e",
	    600000, 700000);
	/* An instant whose name would clear the screen if sent raw. */
	fxt_instant(fp, 100, 101, "\033[2Jboom", 750000);
	/* A counter rising from 0 to 7 and back. */
	for (int i = 0; i < 16; i++)
		fxt_counter(fp, 100, 101, "queue", "depth", i < 8 ? i : 15 - i,
		    (uint64_t)i * 62500);
	/* Thread 102: names made of escape sequences and controls. */
	fxt_complete(fp, 100, 102, "\033[31mred\033[0m", 0, 500000);
	fxt_complete(fp, 100, 102, "\xc2\x9b" "2J c1", 200000, 300000);
	fxt_complete(fp, 100, 102, "bell\007tab\tnl\n", 500000, 1000000);
	fclose(fp);
	return 0;
}

/* ---------------------------------------------------------------- bench */

static int
cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return x < y ? -1 : x > y;
}

static long
now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* bench N KEY...: sends the keys N times each, round robin, and prints
 * per key the latency from sending it to the end of its frame (median,
 * p99, max) and the bytes the frame wrote (median, max; the sentinel not
 * counted). */
static void
bench(char *arg)
{
	char *keys[16];
	int n = atoi(arg), nk = 0;
	long *lat, *bytes;
	char *rest = strchr(arg, ' ');

	if (n <= 0 || rest == NULL)
		die("bench N KEY...");
	for (char *k = strtok(rest + 1, " "); k && nk < 16; k = strtok(NULL, " "))
		keys[nk++] = k;
	lat = calloc((size_t)n * (size_t)nk, sizeof *lat);
	bytes = calloc((size_t)n * (size_t)nk, sizeof *bytes);
	for (int i = 0; i < n; i++)
		for (int k = 0; k < nk; k++) {
			char sent[64];
			long t0 = now_us();
			send_key(keys[k]);
			lat[k * n + i] = now_us() - t0;
			bytes[k * n + i] = (long)bytes_last_key - snprintf(sent,
			    sizeof sent, "%s%ld\a", SENTINEL, keys_sent);
		}
	for (int k = 0; k < nk; k++) {
		long *l = lat + k * n, *b = bytes + k * n;
		xqsort(l, (size_t)n, sizeof *l, cmp_long);
		xqsort(b, (size_t)n, sizeof *b, cmp_long);
		printf("key %-8s x%-4d latency median %7.2f ms  p99 %7.2f ms  "
		    "max %7.2f ms   bytes median %6ld  max %6ld\n", keys[k], n,
		    l[n / 2] / 1000.0, l[(size_t)(n * 0.99)] / 1000.0,
		    l[n - 1] / 1000.0, b[n / 2], b[n - 1]);
	}
	fflush(stdout);
	free(lat);
	free(bytes);
}

/* ----------------------------------------------------------------- main */

static void bench(char *arg);

static void
run_line(char *line)
{
	char *cmd = line, *arg;

	line[strcspn(line, "\n")] = '\0';
	while (isspace((unsigned char)*cmd))
		cmd++;
	if (*cmd == '\0' || *cmd == '#')
		return;
	arg = cmd + strcspn(cmd, " ");
	if (*arg != '\0')
		*arg++ = '\0';
	if (strcmp(cmd, "size") == 0) {
		if (sscanf(arg, "%d %d", &cols, &rows) != 2)
			die("size COLS ROWS");
	} else if (strcmp(cmd, "env") == 0) {
		if (nenv < 32)
			envs[nenv++] = strdup(arg);
	} else if (strcmp(cmd, "start") == 0) {
		start(arg, false);
	} else if (strcmp(cmd, "refused") == 0) {
		/* "refused STATUS ARGS": ttv ends before its first frame. */
		int want = atoi(arg);
		char *rest = strchr(arg, ' ');
		start(rest ? rest + 1 : arg + strlen(arg), true);
		do_exited(want);
	} else if (strcmp(cmd, "key") == 0) {
		for (char *k = strtok(arg, " "); k; k = strtok(NULL, " "))
			send_key(k);
	} else if (strcmp(cmd, "type") == 0) {
		type_text(arg);
	} else if (strcmp(cmd, "wait") == 0) {
		wait_text(arg);
	} else if (strcmp(cmd, "expect") == 0) {
		int r = atoi(arg);
		char *text = strchr(arg, ' ');
		if (r < 0)
			r += rows;
		if (text == NULL)
			die("expect ROW TEXT");
		text++;
		if (strstr(row_text(r), text) == NULL)
			fail("row %d does not contain '%s': '%s'", r, text,
			    row_text(r));
	} else if (strcmp(cmd, "expect_not") == 0) {
		if (screen_has(arg))
			fail("'%s' is on screen", arg);
	} else if (strcmp(cmd, "screen") == 0) {
		char *s = screen_text();
		compare_golden(arg, s);
		free(s);
	} else if (strcmp(cmd, "attrs") == 0) {
		char *s = attr_text();
		compare_golden(arg, s);
		free(s);
	} else if (strcmp(cmd, "cell") == 0) {
		int r, c, n = 0;
		if (sscanf(arg, "%d %d %n", &r, &c, &n) < 2)
			die("cell ROW COL ATTRS");
		if (r < 0)
			r += rows;
		check_cell(r, c, arg + n);
	} else if (strcmp(cmd, "find") == 0) {
		/* find TEXT|ATTRS: TEXT may hold spaces. */
		char *bar = strrchr(arg, '|');
		if (bar == NULL)
			die("find TEXT|ATTRS");
		*bar = '\0';
		find_text(arg, bar + 1);
	} else if (strcmp(cmd, "dump") == 0) {
		/* Prints the screen: for README captures and debugging. */
		char *t = screen_text();
		fputs(t, stdout);
		fflush(stdout);
		free(t);
	} else if (strcmp(cmd, "nocontrol") == 0) {
		no_controls();
	} else if (strcmp(cmd, "bytes_max") == 0) {
		size_t max = (size_t)atol(arg);
		if (bytes_last_key > max)
			fail("the last key cost %zu bytes, more than %zu",
			    bytes_last_key, max);
	} else if (strcmp(cmd, "bytes_save") == 0) {
		/* The last key's bytes as a yardstick (e.g. a full repaint). */
		bytes_saved = bytes_last_key;
	} else if (strcmp(cmd, "bytes_max_saved") == 0) {
		if (bytes_last_key > bytes_saved)
			fail("the last key cost %zu bytes, more than the saved "
			    "%zu", bytes_last_key, bytes_saved);
	} else if (strcmp(cmd, "resize") == 0) {
		int c, r;
		if (sscanf(arg, "%d %d", &c, &r) != 2)
			die("resize COLS ROWS");
		do_resize(c, r);
	} else if (strcmp(cmd, "bench") == 0) {
		bench(arg);
	} else if (strcmp(cmd, "shell") == 0) {
		/* "shell CMD": a command beside the running ttv, whose pid
		 * it finds in TTV_PID (a test puts something in its way). */
		char pid[32];
		snprintf(pid, sizeof pid, "%ld", (long)child);
		setenv("TTV_PID", pid, 1);
		if (system(arg) != 0)
			fail("shell: '%s' failed", arg);
	} else if (strcmp(cmd, "setenv") == 0) {
		/* "setenv NAME FILE": $NAME for the next start, the first line
		 * of FILE (what a shell command found: a port, a URL) */
		char *file = strchr(arg, ' ');
		if (file == NULL)
			die("setenv NAME FILE");
		*file++ = '\0';
		FILE *fp = fopen(file, "r");
		char val[1024];
		if (fp == NULL || fgets(val, sizeof val, fp) == NULL)
			die("setenv: nothing to read in %s", file);
		fclose(fp);
		val[strcspn(val, "\n")] = '\0';
		setenv(arg, val, 1);
	} else if (strcmp(cmd, "quit") == 0) {
		do_quit(*arg ? atoi(arg) : 0);
	} else if (strcmp(cmd, "exited") == 0) {
		do_exited(atoi(arg));
	} else if (strcmp(cmd, "killed") == 0) {
		do_killed(arg);
	} else if (strcmp(cmd, "limit") == 0) {
		limit_mib = atol(arg);
	} else
		die("unknown command '%s'", cmd);
}

int
main(int argc, char **argv)
{
	FILE *fp;
	char *line = NULL;
	size_t cap = 0;

	if (argc == 3 && strcmp(argv[1], "--make-fxt") == 0)
		return make_fxt(argv[2]);
	if (argc != 2) {
		fprintf(stderr, "usage: ui_screen SCRIPT | --make-fxt FILE\n");
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	if (getenv("UI_TIMEOUT_MS") != NULL)
		wait_limit_ms = atol(getenv("UI_TIMEOUT_MS"));
	script_path = argv[1];
	fp = fopen(script_path, "r");
	if (fp == NULL) {
		perror(script_path);
		return 2;
	}
	while (getline(&line, &cap, fp) > 0) {
		script_line++;
		run_line(line);
	}
	fclose(fp);
	free(line);
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
	if (vt != NULL)
		vterm_free(vt);
	return failures ? 1 : 0;
}
