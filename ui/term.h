/*
 * The terminal backend: the only code in ttv that talks to curses. It sets
 * the terminal up and restores it, turns curses keys into ttv keys
 * (keys.h), picks how styles look for the terminal's colours, and copies a
 * grid to the screen sending only the cells that changed (one doupdate per
 * frame, never clear() on navigation).
 */
#ifndef TTV_UI_TERM_H
#define TTV_UI_TERM_H

#include <stdbool.h>
#include <stdint.h>

#include "grid.h"

enum term_colour { TERM_MONO, TERM_8, TERM_256, TERM_DIRECT };

enum term_button { TERM_CLICK = 1, TERM_WHEEL_UP, TERM_WHEEL_DOWN };

struct term_info {
	bool utf8;		/* the locale's charset is UTF-8 */
	enum term_colour colour;
	int w, h;
	/* The last TK_MOUSE event: where and what. */
	int mouse_x, mouse_y;
	enum term_button mouse_button;
};

/* Opens the terminal on stdin/stdout; -1 with *err (caller frees) when
 * there is none usable. */
int term_open(struct term_info *info, char **err);
/* Restores the terminal; safe to call twice. */
void term_close(void);
/* Puts the terminal back from a signal handler (async-signal-safe): the
 * screen curses left, the cursor, the modes from before term_open(). */
void term_emergency_restore(void);
/* Copies g to the screen; (cx, cy) shows the cursor there, -1 hides it. */
void term_draw(const struct grid *g, int cx, int cy);
/* Gives the terminal to another program (an editor) as it was before
 * term_open, and takes it back, every cell repainted at the next
 * term_draw. */
void term_suspend(void);
void term_resume(void);
/* Forces the next term_draw to repaint every cell (Ctrl-L). */
void term_invalidate(void);
/* The next key, TK_NONE after timeout_ms (-1: wait); TK_RESIZE updates
 * info->w/h. */
int term_getkey(struct term_info *info, int timeout_ms);
/* True once SIGINT/SIGTERM/SIGHUP asked the viewer to leave. */
bool term_quit_requested(void);
/* Test builds: after each frame, writes a sentinel (an OSC sequence that
 * terminals ignore) carrying n, when TTV_TEST_SENTINEL is set. */
void term_sentinel(unsigned long n);
/* The name of the colour mode, for the status line and tests. */
const char *term_colour_name(enum term_colour c);

#endif
