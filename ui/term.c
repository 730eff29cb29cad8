/*
 * The curses backend (see term.h). Everything curses is here: set-up,
 * colours, key translation, and the copy of the cell grid to the screen.
 *
 * The grid is diffed against a shadow copy of what was last drawn, and
 * only changed cells are handed to curses; curses then diffs its virtual
 * screen against the terminal, so a cursor move costs a few hundred bytes.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#ifndef NCURSES_WIDECHAR
#define NCURSES_WIDECHAR 1
#endif

#include <curses.h>
#include <term.h>
#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include "keys.h"
#include "env.h"
#include "term.h"
#include "xalloc.h"

static SCREEN *screen;
/* Flags that signal handlers read or write: atomic, as a handler may run
 * on the worker thread (and lock-free, as handlers need). */
static atomic_bool is_open;
static struct cell *shadow;
static int shadow_w, shadow_h;
static attr_t style_attr[STYLE_COUNT];
static int style_pair[STYLE_COUNT];
static atomic_int quit_flag;
static atomic_int winch_flag;
/* The terminal's modes before curses, for term_emergency_restore(). */
static struct termios saved_modes;
static atomic_bool have_saved_modes;
static int sentinel_on = -1;

_Static_assert(ATOMIC_INT_LOCK_FREE == 2 && ATOMIC_BOOL_LOCK_FREE == 2,
    "the flags signal handlers touch must be lock-free");

/* Signals that end the process whatever it is doing: abort() (an
 * allocation that cannot be met, a failed check), crashes, Ctrl-\. Each
 * puts the terminal back first, then takes the action it had before (the
 * default, or a sanitizer's report). */
static const int fatal_signals[] = { SIGABRT, SIGSEGV, SIGBUS, SIGFPE,
	SIGILL, SIGQUIT };
#define NFATAL (sizeof fatal_signals / sizeof *fatal_signals)
static struct sigaction fatal_old[NFATAL];

const char *
term_colour_name(enum term_colour c)
{
	switch (c) {
	case TERM_MONO: return "no colour";
	case TERM_8: return "8 colours";
	case TERM_256: return "256 colours";
	case TERM_DIRECT: return "direct colour";
	}
	return "";
}

static void
on_signal(int sig)
{
	(void)sig;
	atomic_store(&quit_flag, 1);
}

static void
on_winch(int sig)
{
	(void)sig;
	atomic_store(&winch_flag, 1);
}

static void
on_fatal(int sig, siginfo_t *info, void *ctx)
{
	(void)ctx;
	term_emergency_restore();
	for (size_t i = 0; i < NFATAL; i++)
		if (fatal_signals[i] == sig)
			sigaction(sig, &fatal_old[i], NULL);
	/* A fault comes back when the instruction runs again, with what
	 * it says of itself; any other signal is sent again. */
	bool fault = sig != SIGABRT && sig != SIGQUIT && info != NULL &&
	    info->si_code > 0;
	if (!fault)
		raise(sig);
}

bool
term_quit_requested(void)
{
	return atomic_load(&quit_flag) != 0;
}

/* Hues for slices, in RGB, 256-colour index and 8-colour index. Muted
 * tones with black text so labels stay readable. */
static const struct {
	int rgb, c256, c8;
} hues[STYLE_NHUES] = {
	{ 0x8fb8de, 110, COLOR_BLUE },
	{ 0xa8d8a0, 151, COLOR_GREEN },
	{ 0xe8c890, 180, COLOR_YELLOW },
	{ 0xe0a0a0, 174, COLOR_RED },
	{ 0xc0a8e0, 183, COLOR_MAGENTA },
	{ 0x90d0d0, 116, COLOR_CYAN },
	{ 0xd8d890, 186, COLOR_YELLOW },
	{ 0xa0b0e8, 147, COLOR_BLUE },
	{ 0xb8e0b8, 157, COLOR_GREEN },
	{ 0xe8b0c8, 218, COLOR_MAGENTA },
	{ 0xb0c8c8, 152, COLOR_CYAN },
	{ 0xd0b8a0, 181, COLOR_RED },
};

/* A colour by meaning, per mode: -1 is the terminal default. */
struct rgbc {
	int rgb, c256, c8;
};
#define DEF { -1, -1, -1 }

static int
pick(struct rgbc c, enum term_colour mode)
{
	switch (mode) {
	case TERM_DIRECT: return c.rgb;
	case TERM_256: return c.c256;
	default: return c.c8;
	}
}

static void
set_pair(int style, struct rgbc fg, struct rgbc bg, attr_t a,
    enum term_colour mode)
{
	int pair = style + 1;

	init_extended_pair(pair, pick(fg, mode), pick(bg, mode));
	style_pair[style] = pair;
	style_attr[style] = a;
}

/* Two traces compared: red for what grew, blue for what shrank, lighter
 * to stronger by the size of the change; on 8 colours one red and one
 * blue, the strongest in bold. */
static void
setup_diff_styles(enum term_colour mode)
{
	static const struct rgbc grew[STYLE_DIFF_LEVELS] = {
		{ 0xf4c7c3, 224, COLOR_RED }, { 0xec8f86, 210, COLOR_RED },
		{ 0xe0483c, 203, COLOR_RED },
	};
	static const struct rgbc shrank[STYLE_DIFF_LEVELS] = {
		{ 0xc6d4f0, 189, COLOR_BLUE }, { 0x8eaae4, 111, COLOR_BLUE },
		{ 0x4a78d0, 68, COLOR_BLUE },
	};
	const struct rgbc black = { 0x000000, 16, COLOR_BLACK };
	const struct rgbc white = { 0xffffff, 231, COLOR_WHITE };
	const struct rgbc same = { 0xd0d0d0, 252, COLOR_WHITE };

	for (int i = 0; i < STYLE_DIFF_LEVELS; i++) {
		bool eight = mode == TERM_8;
		attr_t a = eight && i == STYLE_DIFF_LEVELS - 1 ? A_BOLD : 0;
		set_pair(STYLE_DIFF_GREW0 + i, eight ? white : black, grew[i],
		    a, mode);
		set_pair(STYLE_DIFF_SHRANK0 + i, eight ? white : black,
		    shrank[i], a, mode);
	}
	set_pair(STYLE_DIFF_SAME, black, same, 0, mode);
}

static void
setup_styles(enum term_colour mode)
{
	const struct rgbc def = DEF;
	const struct rgbc black = { 0x000000, 16, COLOR_BLACK };
	const struct rgbc white = { 0xffffff, 231, COLOR_WHITE };
	const struct rgbc blue = { 0x30508c, 24, COLOR_BLUE };
	const struct rgbc grey = { 0x8a8a8a, 245, COLOR_WHITE };
	const struct rgbc dgrey = { 0x5a5a5a, 240, COLOR_WHITE };
	const struct rgbc yellow = { 0xffd75f, 221, COLOR_YELLOW };
	const struct rgbc red = { 0xff5f5f, 203, COLOR_RED };
	const struct rgbc cyan = { 0x5fafd7, 74, COLOR_CYAN };
	const struct rgbc selbg = { 0xffffff, 231, COLOR_WHITE };

	memset(style_pair, 0, sizeof style_pair);
	memset(style_attr, 0, sizeof style_attr);
	if (mode == TERM_MONO) {
		/* Without colour, meaning is carried by attributes only. */
		style_attr[STYLE_HEADER] = A_REVERSE;
		style_attr[STYLE_STATUS] = A_REVERSE;
		style_attr[STYLE_ERROR] = A_BOLD;
		style_attr[STYLE_MARKER] = A_BOLD;
		style_attr[STYLE_LANE] = A_BOLD;
		style_attr[STYLE_SELECTED] = A_BOLD | A_UNDERLINE;
		style_attr[STYLE_MATCH] = A_REVERSE | A_BOLD | A_UNDERLINE;
		style_attr[STYLE_TITLE] = A_BOLD;
		for (int i = 0; i < STYLE_NHUES; i++)
			style_attr[STYLE_SLICE0 + i] = A_REVERSE;
		/* A change by its attribute: bold grew, underlined shrank
		 * (the labels say by how much). */
		for (int i = 0; i < STYLE_DIFF_LEVELS; i++) {
			style_attr[STYLE_DIFF_GREW0 + i] = A_REVERSE | A_BOLD;
			style_attr[STYLE_DIFF_SHRANK0 + i] = A_REVERSE |
			    A_UNDERLINE;
		}
		style_attr[STYLE_DIFF_SAME] = A_REVERSE;
		return;
	}
	start_color();
	use_default_colors();
	set_pair(STYLE_NORMAL, def, def, 0, mode);
	set_pair(STYLE_HEADER, white, blue, A_BOLD, mode);
	set_pair(STYLE_STATUS, black, grey, 0, mode);
	set_pair(STYLE_ERROR, red, def, A_BOLD, mode);
	set_pair(STYLE_RULER, def, def, 0, mode);
	set_pair(STYLE_TICK, grey, def, 0, mode);
	set_pair(STYLE_MARKER, yellow, def, A_BOLD, mode);
	set_pair(STYLE_LANE, cyan, def, A_BOLD, mode);
	set_pair(STYLE_DIM, mode == TERM_8 ? def : dgrey, def, 0, mode);
	set_pair(STYLE_DENSITY, grey, def, 0, mode);
	set_pair(STYLE_SELECTED, black, selbg, A_BOLD, mode);
	set_pair(STYLE_MATCH, black, yellow, A_BOLD, mode);
	set_pair(STYLE_TITLE, cyan, def, A_BOLD, mode);
	set_pair(STYLE_BORDER, grey, def, 0, mode);
	set_pair(STYLE_BAR, grey, def, 0, mode);
	for (int i = 0; i < STYLE_NHUES; i++) {
		struct rgbc h = { hues[i].rgb, hues[i].c256, hues[i].c8 };
		set_pair(STYLE_SLICE0 + i, black, h, 0, mode);
		set_pair(STYLE_EDGE0 + i, h, def, 0, mode);
	}
	if (mode == TERM_8) {
		/* Blue and red backgrounds need white text on 8 colours. */
		for (int i = 0; i < STYLE_NHUES; i++)
			if (hues[i].c8 == COLOR_BLUE || hues[i].c8 == COLOR_RED)
				set_pair(STYLE_SLICE0 + i, white,
				    (struct rgbc){ hues[i].rgb, hues[i].c256,
				    hues[i].c8 }, 0, mode);
	}
	setup_diff_styles(mode);
}

static enum term_colour
detect_colour(void)
{
	const char *nc = getenv("NO_COLOR");

	/* https://no-color.org: any non-empty value disables colour. */
	if (nc != NULL && nc[0] != '\0')
		return TERM_MONO;
	if (!has_colors())
		return TERM_MONO;
	/* COLORS is only known once colour is started. */
	if (start_color() != OK)
		return TERM_MONO;
	if (COLORS >= 0x1000000 && tigetflag("RGB") > 0)
		return TERM_DIRECT;
	if (COLORS >= 256)
		return TERM_256;
	if (COLORS >= 8)
		return TERM_8;
	return TERM_MONO;
}

int
term_open(struct term_info *info, char **err)
{
	const char *cs;
	struct sigaction sa;

	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		*err = xstrdup("standard input and output must be a terminal");
		return -1;
	}
	cs = nl_langinfo(CODESET);
	info->utf8 = cs != NULL && (strcmp(cs, "UTF-8") == 0 ||
	    strcmp(cs, "utf8") == 0);
	if (tcgetattr(STDIN_FILENO, &saved_modes) == 0)
		atomic_store(&have_saved_modes, true);
	/* A short Esc delay unless the user chose one: Esc closes panes. */
	if (getenv("ESCDELAY") == NULL)
		set_escdelay(25);
	/* Our own SIGWINCH handler, installed before curses so it keeps
	 * out of the way: without SA_RESTART a resize interrupts the read,
	 * and term_getkey() resizes at once instead of at the next key. */
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_winch;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGWINCH, &sa, NULL);
	screen = newterm(NULL, stdout, stdin);
	if (screen == NULL) {
		const char *t = getenv("TERM");
		*err = xasprintf("cannot use terminal type '%s'",
		    t != NULL ? t : "(unset)");
		return -1;
	}
	atomic_store(&is_open, true);
	cbreak();		/* not raw: Ctrl-Z and Ctrl-C keep working */
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	intrflush(stdscr, FALSE);
	leaveok(stdscr, FALSE);
	curs_set(0);
	/* Clicks select, the wheel zooms; presses only, reported at once
	 * (no click-interval wait). Shift+drag still selects text in most
	 * terminals. */
	mouseinterval(0);
	mousemask(BUTTON1_PRESSED | BUTTON4_PRESSED | BUTTON5_PRESSED, NULL);
	info->colour = detect_colour();
	setup_styles(info->colour);
	info->w = COLS;
	info->h = LINES;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_fatal;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < NFATAL; i++)
		sigaction(fatal_signals[i], &sa, &fatal_old[i]);
	sentinel_on = ttv_getenv(TTV_ENV_TEST_SENTINEL) != NULL;
	return 0;
}

void
term_emergency_restore(void)
{
	/* attributes, the mouse (and its SGR mode), the cursor, the
	 * keypad, the main screen */
	static const char seq[] = "\033[0m\033[?1000l\033[?1006l\033[?25h"
	    "\033[?1l\033>\033[?1049l\r";

	if (!atomic_exchange(&is_open, false))
		return;
	(void)!write(STDOUT_FILENO, seq, sizeof seq - 1);
	if (atomic_load(&have_saved_modes))
		tcsetattr(STDIN_FILENO, TCSANOW, &saved_modes);
}

void
term_close(void)
{
	if (!atomic_exchange(&is_open, false))
		return;
	/* the fatal signals' actions from before: the terminal is ours no
	 * more (a fault after this needs nothing put back) */
	for (size_t i = 0; i < NFATAL; i++) {
		struct sigaction cur;
		sigaction(fatal_signals[i], NULL, &cur);
		if (cur.sa_sigaction == on_fatal)
			sigaction(fatal_signals[i], &fatal_old[i], NULL);
	}
	curs_set(1);
	endwin();
	delscreen(screen);
	screen = NULL;
	free(shadow);
	shadow = NULL;
	shadow_w = shadow_h = 0;
}

void
term_suspend(void)
{
	if (!atomic_load(&is_open))
		return;
	curs_set(1);
	endwin();	/* the modes and the screen from before; mouse off */
}

void
term_resume(void)
{
	if (!atomic_load(&is_open))
		return;
	reset_prog_mode();
	curs_set(0);
	term_invalidate();
	refresh();
	/* The keypad's and the mouse's modes back now: curses sends them at
	 * its next read, which would write after the frame drawn next. A
	 * read that does not wait does it; what it read goes back. */
	wint_t k;
	wtimeout(stdscr, 0);
	int r = wget_wch(stdscr, &k);
	if (r == OK)
		unget_wch((wchar_t)k);
	else if (r == KEY_CODE_YES)
		ungetch((int)k);
}

void
term_invalidate(void)
{
	free(shadow);
	shadow = NULL;
	shadow_w = shadow_h = 0;
	if (atomic_load(&is_open))
		clearok(curscr, TRUE);
}

static void
put_cell(int x, int y, const struct cell *c)
{
	wchar_t wc[2] = { (wchar_t)c->ch, 0 };
	attr_t a = style_attr[c->style < STYLE_COUNT ? c->style : 0];
	cchar_t cc;

	if (c->attr & ATTR_BOLD)
		a |= A_BOLD;
	if (c->attr & ATTR_REVERSE)
		a ^= A_REVERSE;
	if (c->attr & ATTR_UNDERLINE)
		a |= A_UNDERLINE;
	if (c->ch < 0x20 || c->ch == 0x7f)
		wc[0] = '?';
	setcchar(&cc, wc, a, 0, NULL);
	/* Pairs above 255 do not fit in attr_t: set the extended pair. */
	cc.ext_color = style_pair[c->style < STYLE_COUNT ? c->style : 0];
	mvwadd_wch(stdscr, y, x, &cc);
}

void
term_draw(const struct grid *g, int cx, int cy)
{
	size_t n = (size_t)g->w * (size_t)g->h;
	bool full = shadow == NULL || shadow_w != g->w || shadow_h != g->h;

	if (!atomic_load(&is_open))
		return;
	if (full) {
		free(shadow);
		shadow = xcalloc(n, sizeof *shadow);
		shadow_w = g->w;
		shadow_h = g->h;
	}
	for (int y = 0; y < g->h && y < LINES; y++) {
		const struct cell *row = g->cells + (size_t)y * (size_t)g->w;
		struct cell *old = shadow + (size_t)y * (size_t)g->w;

		if (!full && memcmp(row, old, (size_t)g->w * sizeof *row) == 0)
			continue;
		for (int x = 0; x < g->w && x < COLS; x++) {
			const struct cell *c = &row[x];
			if (!full && memcmp(c, &old[x], sizeof *c) == 0)
				continue;
			if (c->ch == GRID_WIDE_TAIL) {
				/* Owned by the wide character before it;
				 * a tail without its head becomes blank. */
				if (x == 0 || row[x - 1].ch < 0x1100) {
					struct cell sp = *c;
					sp.ch = ' ';
					put_cell(x, y, &sp);
				}
				continue;
			}
			put_cell(x, y, c);
		}
		memcpy(old, row, (size_t)g->w * sizeof *row);
	}
	if (cx >= 0 && cy >= 0) {
		wmove(stdscr, cy, cx);
		curs_set(1);
	} else
		curs_set(0);
	wnoutrefresh(stdscr);
	doupdate();
}

void
term_sentinel(unsigned long n)
{
	char buf[64];
	int len;

	if (sentinel_on != 1)
		return;
	len = snprintf(buf, sizeof buf, "\033]7777;ttv-frame;%lu\007", n);
	if (write(STDOUT_FILENO, buf, (size_t)len) < 0) {
		/* nothing to do: the test will time out and say so */
	}
}

static int
translate(int r, wint_t k)
{
	if (r == OK) {
		if (k == '\r' || k == '\n')
			return TK_ENTER;
		if (k == 127 || k == 8)
			return TK_BACKSPACE;
		return (int)k;
	}
	switch (k) {
	case KEY_UP: return TK_UP;
	case KEY_DOWN: return TK_DOWN;
	case KEY_LEFT: return TK_LEFT;
	case KEY_RIGHT: return TK_RIGHT;
	case KEY_SLEFT: return TK_SLEFT;
	case KEY_SRIGHT: return TK_SRIGHT;
	case KEY_HOME: return TK_HOME;
	case KEY_END: return TK_END;
	case KEY_PPAGE: return TK_PGUP;
	case KEY_NPAGE: return TK_PGDN;
	case KEY_BTAB: return TK_BTAB;
	case KEY_BACKSPACE: return TK_BACKSPACE;
	case KEY_DC: return TK_DELETE;
	case KEY_ENTER: return TK_ENTER;
	case KEY_RESIZE: return TK_RESIZE;
	case KEY_F(1): return TK_F1;
	}
	return TK_NONE;
}

/* Applies a pending resize; true if there was one. */
static bool
take_resize(struct term_info *info)
{
	struct winsize ws;

	if (!atomic_exchange(&winch_flag, 0))
		return false;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 &&
	    ws.ws_col > 0)
		resize_term(ws.ws_row, ws.ws_col);
	info->w = COLS;
	info->h = LINES;
	return true;
}

int
term_getkey(struct term_info *info, int timeout_ms)
{
	wint_t k;
	int r, key, waited = 0;
	/* Never block long: a resize signal that lands just before the
	 * read is then seen within this many ms. */
	const int slice = 100;

	if (!atomic_load(&is_open))
		return TK_NONE;
	for (;;) {
		int t;

		if (take_resize(info))
			return TK_RESIZE;
		if (atomic_load(&quit_flag))
			return TK_NONE;
		t = timeout_ms < 0 || timeout_ms - waited > slice ? slice :
		    timeout_ms - waited;
		wtimeout(stdscr, t);
		r = wget_wch(stdscr, &k);
		if (r == ERR) {
			/* Timeout or EINTR (resize, Ctrl-Z and back). */
			waited += t;
			if (timeout_ms >= 0 && waited >= timeout_ms &&
			    !atomic_load(&winch_flag))
				return TK_NONE;
			continue;
		}
		if (r == KEY_CODE_YES && k == KEY_MOUSE) {
			MEVENT ev;
			if (getmouse(&ev) != OK)
				continue;
			info->mouse_x = ev.x;
			info->mouse_y = ev.y;
			if (ev.bstate & BUTTON4_PRESSED)
				info->mouse_button = TERM_WHEEL_UP;
			else if (ev.bstate & BUTTON5_PRESSED)
				info->mouse_button = TERM_WHEEL_DOWN;
			else if (ev.bstate & BUTTON1_PRESSED)
				info->mouse_button = TERM_CLICK;
			else
				continue;
			return TK_MOUSE;
		}
		key = translate(r, k);
		if (key == TK_RESIZE) {
			info->w = COLS;
			info->h = LINES;
		}
		if (key != TK_NONE)
			return key;
	}
}
