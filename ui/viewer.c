/*
 * The viewer: opens the terminal, shows a load's progress on its last row,
 * then runs the loop — draw the header, the pane in front (or the key
 * list over it) and the status line into the grid, copy the grid to the
 * terminal (only what changed), read a key, look it up in the key table,
 * run the command. Global commands are handled here; pane commands by the
 * pane in front, through its class (pane.h). Prompts (/ f F g :) edit a
 * line on the status row.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "escape.h"
#include "follower.h"
#include "jobs.h"
#include "layout.h"
#include "mapfile.h"
#include "panes.h"
#include "term.h"
#include "text.h"
#include "timefmt.h"
#include "utf8.h"
#include "sqlpane.h"
#include "callpanes.h"
#include "columns.h"
#include "diffpane.h"
#include "range.h"
#include "state.h"
#include "view_carry.h"
#include "viewer.h"
#include "xalloc.h"

enum prompt_kind { PROMPT_NONE, PROMPT_SEARCH, PROMPT_SHOW, PROMPT_HIDE,
	PROMPT_GOTO, PROMPT_RANGE, PROMPT_COMMAND };

#define PROMPT_HISTORY 32

struct prompt {
	enum prompt_kind kind;
	char buf[256];
	size_t len;
	int err_col;		/* 1-based column of a regex error, or 0 */
	/* What was entered at each kind of prompt, newest last; Up and
	 * Down walk it (pos == n: the line being typed). */
	struct {
		char *lines[PROMPT_HISTORY];
		size_t n, pos;
	} history[PROMPT_COMMAND + 1];
	char draft[256];	/* the line being typed, while walking */
};

/* Swaps remembered for the rate of new events. */
#define FOLLOW_SAMPLES 32

struct viewer {
	struct term_info ti;
	struct grid *grid;
	struct view view;
	/* The key list shown over the pane in front, and where it is
	 * scrolled. */
	bool help;
	struct list_pos help_pos;
	/* The column chooser (V) shown over the pane in front. */
	bool chooser;
	struct list_pos chooser_pos;
	/* The pane's rectangle at the last draw, for the mouse. */
	struct rect main_rect;
	struct prompt prompt;
	enum cmd pending;	/* waiting for a bookmark letter */
	const char *path;
	const char *loading;	/* what the progress names, NULL: path */
	unsigned long events;
	/* The source lines' finder (viewer_set_source). */
	source_find_fn source_find;
	void *source_arg;
	char *index_line;	/* viewer_set_index */
	/* Load progress. */
	struct timespec load_start, load_last;
	/* Following the trace as it is written (--follow): the program's
	 * road, its thread, a newer trace waiting to be swapped in (while a
	 * job still reads the shown one), whether the window keeps to the
	 * end, why nothing could be read yet, and the events counted at the
	 * last swaps, for their rate. */
	bool can_follow;
	/* The search is being found again in a newer read: when it is
	 * done, the cursor stays where it is. */
	bool search_quiet;
	struct viewer_follow road;
	struct follower *follower;
	struct trace *held;
	bool held_by_diff;	/* held while a base is compared */
	bool following, ended;
	bool lost;		/* ended by a relay lost or its damage */
	const char *waiting;
	struct follow_sample {
		double at;
		uint64_t events;
	} samples[FOLLOW_SAMPLES];
	size_t nsamples;	/* taken so far (the ring holds the last) */
};

static double
elapsed(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) +
	    (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

static void
draw_status_text(struct viewer *w, const char *s, int style)
{
	struct grid *g = w->grid;

	grid_fill(g, (struct rect){ 0, g->h - 1, g->w, 1 }, ' ', STYLE_STATUS,
	    0);
	text_puts(g, 0, g->h - 1, g->w, s, style, 0);
}

void
viewer_progress(void *arg, uint64_t done, uint64_t total)
{
	struct viewer *w = arg;
	struct timespec now;
	char buf[256];
	double secs, mb = (double)done / 1e6;

	if (term_quit_requested()) {
		/* Ctrl-C while a big trace loads: the load cannot be
		 * stopped half way, so leave now, terminal restored. */
		term_close();
		fprintf(stderr, "ttv: interrupted while loading %s\n",
		    w->loading ? w->loading : w->path);
		exit(130);
	}
	clock_gettime(CLOCK_MONOTONIC, &now);
	/* Ten updates a second are plenty; each costs one status line. */
	if (done < total && elapsed(&w->load_last, &now) < 0.1)
		return;
	w->load_last = now;
	secs = elapsed(&w->load_start, &now);
	snprintf(buf, sizeof buf, "loading %s: %3.0f%%  %.0f of %.0f MB  "
	    "%.0f MB/s", w->loading ? w->loading : w->path, total ? 100.0 * (double)done /
	    (double)total : 0.0, mb, (double)total / 1e6,
	    secs > 0 ? mb / secs : 0.0);
	draw_status_text(w, buf, STYLE_STATUS);
	term_draw(w->grid, -1, -1);
}

/* --------------------------------------------------------------- drawing */

/* "range +1.000 000 ms .. +2.500 000 ms (1.50 ms)": with every digit. */
static const char *
range_text(const struct view *v, char *buf, size_t size)
{
	char b1[48], b2[48], b3[48];

	snprintf(buf, size, "range %s .. %s (%s)",
	    view_time_exact(v, v->range_t0, b1, sizeof b1),
	    view_time_exact(v, v->range_t1, b2, sizeof b2),
	    timefmt_duration(v->range_t1 - v->range_t0, b3, sizeof b3));
	return buf;
}

static void
range_message(struct view *v)
{
	char buf[200];

	view_message(v, false, "%s: the functions, flame, call tree, callers, "
	    "calls and search follow it; | clears it",
	    range_text(v, buf, sizeof buf));
}

/* The class of the pane in front. */
static const struct pane_class *
shown(const struct view *v)
{
	return v->panes[v->pane]->cls;
}

static void
draw_header(struct viewer *w, struct rect r)
{
	struct view *v = &w->view;
	const struct trace *t = v->trace;
	char buf[256], b2[48], b3[48], b4[48];
	int c;

	char rb[200];
	int path_w = r.w / 3;
	if (v->range_on) {
		/* the range whole, beside the pane's name, before the path */
		range_text(v, rb, sizeof rb);
		int need = 4 + 6 + (int)strlen(shown(v)->title) +
		    text_width(w->grid, rb, strlen(rb), 1000);
		if (r.w - need < path_w)
			path_w = r.w - need > 8 ? r.w - need : 8;
	}
	grid_fill(w->grid, r, ' ', STYLE_HEADER, 0);
	c = grid_puts(w->grid, r.x, r.y, r.w, "ttv ", STYLE_HEADER, ATTR_BOLD);
	/* a trace followed is named as given: a live session's reads
	 * are of its mirror's directory */
	c += text_puts(w->grid, r.x + c, r.y, path_w, t->path &&
	    !w->can_follow ? t->path : w->path, STYLE_HEADER, 0);
	snprintf(buf, sizeof buf, "  [%s] %s .. %s (%s)  ",
	    shown(v)->title,
	    view_time_res(v, v->t0, v->t1 - v->t0, b2, sizeof b2),
	    view_time_res(v, v->t1, v->t1 - v->t0, b3, sizeof b3),
	    timefmt_duration(v->t1 - v->t0, b4, sizeof b4));
	/* Too narrow for the window and the range: the range, to the ns
	 * (the ruler shows the window). */
	if (v->range_on && c + text_width(w->grid, buf, strlen(buf), 1000) +
	    text_width(w->grid, rb, strlen(rb), 1000) > r.w)
		snprintf(buf, sizeof buf, "  [%s]  ",
		    shown(v)->title);
	c += text_puts(w->grid, r.x + c, r.y, r.w - c, buf, STYLE_HEADER, 0);
	if (v->range_on) {
		snprintf(buf, sizeof buf, "%s", rb);
		c += text_puts(w->grid, r.x + c, r.y, r.w - c, buf,
		    STYLE_HEADER, ATTR_BOLD);
		c += text_puts(w->grid, r.x + c, r.y, r.w - c, "  ",
		    STYLE_HEADER, 0);
	}
	view_filter_text(v, buf, sizeof buf);
	c += text_puts(w->grid, r.x + c, r.y, r.w - c, buf, STYLE_HEADER, 0);
	if (v->search_pattern != NULL) {
		snprintf(buf, sizeof buf, "  /%s/ %zu", v->search_pattern,
		    v->nhits);
		text_puts(w->grid, r.x + c, r.y, r.w - c, buf, STYLE_HEADER, 0);
	}
}

static const char *
prompt_label(enum prompt_kind k)
{
	switch (k) {
	case PROMPT_SEARCH: return "/";
	case PROMPT_SHOW: return "show only functions matching: ";
	case PROMPT_HIDE: return "hide functions matching: ";
	case PROMPT_GOTO: return "go to time: ";
	case PROMPT_RANGE: return "range (1ms..2ms, +1.2ms..+3ms, -1ms..): ";
	case PROMPT_COMMAND: return ":";
	default: return "";
	}
}

/* What the keys of the pane in front do, when nothing else is said. */
static const char *
status_hint(const struct viewer *w)
{
	if (w->chooser)
		return "j/k move  Space show or hide  Esc close";
	return w->help ? "j/k scroll  q close" : shown(&w->view)->hint;
}

static double
now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* What the status line says of the following: "" when not following. */
static const char *
follow_text(const struct viewer *w, char *buf, size_t size)
{
	if (!w->can_follow)
		return "";
	if (w->ended && w->waiting != NULL) {
		/* a relay lost, damage: why, escaped */
		char why[64];
		escape_text(w->waiting, strlen(w->waiting), why, sizeof why);
		snprintf(buf, size, "  ended: %s", why);
		return buf;
	}
	if (w->ended) {
		snprintf(buf, size, "  %s", w->road.live ? "session ended" :
		    "input ended");
		return buf;
	}
	if (w->held != NULL && w->held_by_diff) {
		snprintf(buf, size, "  %s, waiting for the base to be "
		    "compared", w->following ? "following" : "paused");
		return buf;
	}
	if (!w->following) {
		snprintf(buf, size, "  paused (G follows)");
		return buf;
	}
	if (w->waiting != NULL && w->nsamples <= 1) {
		/* nothing read yet, or nothing since the start; why,
		 * escaped (it may name a file) */
		char why[64];
		escape_text(w->waiting, strlen(w->waiting), why, sizeof why);
		snprintf(buf, size, "  following, waiting: %s", why);
		return buf;
	}
	/* new events over the last second or so: from the newest swap at
	 * least a second old (else the first) to the newest */
	double now = now_seconds();
	size_t n = w->nsamples < FOLLOW_SAMPLES ? w->nsamples :
	    FOLLOW_SAMPLES;
	const struct follow_sample *last =
	    &w->samples[(w->nsamples - 1) % FOLLOW_SAMPLES];
	const struct follow_sample *base =
	    &w->samples[(w->nsamples - n) % FOLLOW_SAMPLES];
	for (size_t i = 1; i <= n; i++) {
		const struct follow_sample *s =
		    &w->samples[(w->nsamples - i) % FOLLOW_SAMPLES];
		if (now - s->at >= 1.0) {
			base = s;
			break;
		}
	}
	double secs = now - base->at;
	double rate = secs > 0 && last->events > base->events ?
	    (double)(last->events - base->events) / secs : 0.0;
	snprintf(buf, size, "  following, %.0f events/s", rate);
	return buf;
}

/* The status line: a prompt being typed (cursor returned), or the last
 * message and where the cursor is. */
static int
draw_status(struct viewer *w, struct rect r, int *cx)
{
	struct view *v = &w->view;
	struct grid *g = w->grid;
	char buf[192], b2[48];
	int c;

	grid_fill(g, r, ' ', STYLE_STATUS, 0);
	*cx = -1;
	if (w->prompt.kind != PROMPT_NONE) {
		struct prompt *p = &w->prompt;
		c = grid_puts(g, r.x, r.y, r.w, p->kind == PROMPT_GOTO &&
		    v->wall_clock ? "go to time of day (13:05:01.250) or "
		    "time: " : prompt_label(p->kind), STYLE_STATUS,
		    ATTR_BOLD);
		int tc = text_put(g, r.x + c, r.y, r.w - c - 1, p->buf, p->len,
		    STYLE_STATUS, 0);
		if (p->err_col > 0 && p->err_col <= tc + 1)
			/* Point at where pcre2 stopped understanding. */
			grid_attr(g, r.x + c + p->err_col - 1, r.y, 1,
			    ATTR_REVERSE | ATTR_UNDERLINE);
		*cx = r.x + c + tc;
		/* what a time may be, until a message takes its place */
		const char *hint = p->kind == PROMPT_GOTO ? "+T from the "
		    "start, -T from the end, >T <T from the cursor; T as ttv "
		    "prints it: 12.345 678 ms" : NULL;
		if (v->msg[0] != '\0' && *cx + 3 < r.w)
			text_puts(g, *cx + 2, r.y, r.w - *cx - 2, v->msg,
			    v->msg_error ? STYLE_ERROR : STYLE_DIM, 0);
		else if (hint != NULL && *cx + 3 < r.w)
			text_puts(g, *cx + 2, r.y, r.w - *cx - 2, hint,
			    STYLE_DIM, 0);
		return r.y;
	}
	c = 0;
	if (v->msg[0] != '\0')
		c = text_puts(g, r.x, r.y, r.w, v->msg, v->msg_error ?
		    STYLE_ERROR : STYLE_STATUS, 0);
	else
		c = grid_puts(g, r.x, r.y, r.w, status_hint(w), STYLE_STATUS,
		    0);
	char fb[96];
	snprintf(buf, sizeof buf, "%s  cursor %s", follow_text(w, fb,
	    sizeof fb), view_time_exact(v, view_cursor_time(v), b2,
	    sizeof b2));
	int bw = text_width(g, buf, strlen(buf), r.w);
	if (bw + c < r.w)
		grid_puts(g, r.x + r.w - bw, r.y, bw, buf, STYLE_STATUS, 0);
	return -1;
}

static void
render(struct viewer *w, int *cx, int *cy)
{
	struct view *v = &w->view;
	struct grid *g = w->grid;
	struct layout lay;
	bool details = v->details && v->pane == PANE_TIMELINE && !w->help;

	grid_clear(g);
	layout_compute(g->w, g->h, details, &lay);
	*cx = *cy = -1;
	if (lay.too_small) {
		grid_puts(g, 0, 0, g->w, "too small", STYLE_ERROR, 0);
		return;
	}
	draw_header(w, lay.header);
	w->main_rect = lay.main;
	if (w->help)
		help_draw(&w->help_pos, g, lay.main);
	else
		pane_draw(v, v->pane, g, lay.main);
	struct column_set *cs = pane_column_set(v->panes[v->pane]);
	if (w->chooser && !w->help && cs != NULL)
		columns_draw(cs, &w->chooser_pos, shown(v)->title, g,
		    lay.main);
	if (lay.details_shown)
		details_draw(v, g, lay.details);
	*cy = draw_status(w, lay.status, cx);
}

/* --------------------------------------------------------------- prompts */

static void
prompt_open(struct viewer *w, enum prompt_kind k, const char *init)
{
	w->prompt.kind = k;
	w->prompt.history[k].pos = w->prompt.history[k].n;
	w->view.msg[0] = '\0';
	snprintf(w->prompt.buf, sizeof w->prompt.buf, "%s", init ? init : "");
	w->prompt.len = strlen(w->prompt.buf);
	w->prompt.err_col = 0;
	w->view.msg[0] = '\0';
}

static int run_command(struct viewer *w, enum cmd c);

/* Says what a search found; jumps to the first match when asked. */
static void
search_done(struct view *v, bool jump)
{
	if (jump && v->nhits > 0)
		view_search_jump(v, true);
	if (v->nlog_matches > 0)
		view_message(v, false, "/%s/: %zu match%s in %zu function%s, "
		    "%zu log record%s (n/N next/previous, 4 and 7 list them)",
		    v->search_pattern, v->nhits, v->nhits == 1 ? "" : "es",
		    v->nresults, v->nresults == 1 ? "" : "s",
		    v->nlog_matches, v->nlog_matches == 1 ? "" : "s");
	else
		view_message(v, false, "/%s/: %zu match%s in %zu function%s "
		    "(n/N next/previous, 4 lists them)", v->search_pattern,
		    v->nhits, v->nhits == 1 ? "" : "es", v->nresults,
		    v->nresults == 1 ? "" : "s");
}

static int
err_column(const char *msg)
{
	const char *p = strstr(msg, "at column ");

	return p != NULL ? atoi(p + 10) : 0;
}

/* Keeps an entered line (not a repeat of the last one). */
static void
history_add(struct prompt *p, enum prompt_kind k)
{
	__typeof__(p->history[0]) *h = &p->history[k];

	if (p->len == 0 || (h->n > 0 && strcmp(h->lines[h->n - 1], p->buf) ==
	    0))
		return;
	if (h->n == PROMPT_HISTORY) {
		free(h->lines[0]);
		memmove(h->lines, h->lines + 1, (PROMPT_HISTORY - 1) *
		    sizeof h->lines[0]);
		h->n--;
	}
	h->lines[h->n++] = xstrdup(p->buf);
	h->pos = h->n;
}

/* Up (older) or Down (newer) through what was entered at this prompt;
 * past the newest, the line that was being typed comes back. */
static void
history_step(struct prompt *p, int dir)
{
	__typeof__(p->history[0]) *h = &p->history[p->kind];
	size_t to;

	if (dir < 0 ? h->pos == 0 : h->pos >= h->n)
		return;
	if (h->pos == h->n)
		snprintf(p->draft, sizeof p->draft, "%s", p->buf);
	to = dir < 0 ? h->pos - 1 : h->pos + 1;
	snprintf(p->buf, sizeof p->buf, "%s", to == h->n ? p->draft :
	    h->lines[to]);
	p->len = strlen(p->buf);
	h->pos = to;
}

/* Tab at the command prompt: completes a command name as far as it is
 * unambiguous and lists the candidates when there are several. */
static void
complete_command(struct viewer *w)
{
	struct prompt *p = &w->prompt;
	char common[64], list[200];
	size_t n;

	p->buf[p->len] = '\0';
	n = command_complete(p->buf, common, sizeof common, list,
	    sizeof list);
	if (n == 0) {
		view_message(&w->view, true, "no command starts with '%s'",
		    p->buf);
		return;
	}
	snprintf(p->buf, sizeof p->buf, "%s", common);
	p->len = strlen(p->buf);
	if (n > 1)
		view_message(&w->view, false, "%s", list);
	else
		w->view.msg[0] = '\0';
}

static enum prompt_kind prompt_of(enum cmd c);
static int prompt_submit(struct viewer *w);

/* `:NAME ARG`: what the command would have asked for, given inline. */
static int
command_with_arg(struct viewer *w, enum cmd c, const char *arg)
{
	struct view *v = &w->view;
	struct prompt *p = &w->prompt;
	enum prompt_kind k = prompt_of(c);

	if (k != PROMPT_NONE) {
		/* :goto 1ms as g then 1ms, :command NAME as : then NAME */
		memmove(p->buf, arg, strlen(arg) + 1);
		p->len = strlen(p->buf);
		p->kind = k;
		return prompt_submit(w);
	}
	if (c == CMD_MARK_SET || c == CMD_MARK_JUMP) {
		if (arg[0] == '\0' || arg[1] != '\0') {
			view_message(v, true, "%s takes a letter a-z",
			    command_get(c)->name);
			return PANE_REDRAW;
		}
		if (c == CMD_MARK_SET)
			view_mark_set(v, (unsigned char)arg[0]);
		else
			view_mark_jump(v, (unsigned char)arg[0]);
		return PANE_REDRAW | PANE_DATA;
	}
	view_message(v, true, "%s takes no argument", command_get(c)->name);
	return PANE_REDRAW;
}

static int
prompt_submit(struct viewer *w)
{
	struct view *v = &w->view;
	struct prompt *p = &w->prompt;
	enum prompt_kind k = p->kind;
	ttv_ns t;
	int rc = 0;

	p->buf[p->len] = '\0';
	history_add(p, k);
	switch (k) {
	case PROMPT_SEARCH:
		if (p->len == 0) {
			view_search_clear(v);
			break;
		}
		w->search_quiet = false;
		rc = view_search(v, p->buf);
		if (rc == 0 && v->search_pending)
			view_message(v, false, "searching /%s/ ... (Esc stops)",
			    p->buf);
		else if (rc == 0)
			search_done(v, true);
		break;
	case PROMPT_SHOW:
	case PROMPT_HIDE:
		rc = view_filter_functions(v, p->buf, k == PROMPT_HIDE);
		break;
	case PROMPT_GOTO: {
		/* a time as ttv prints it (timeparse.h): from the start, the
		 * end, the cursor, or a time of day */
		struct time_point tp;
		const char *why;
		ttv_ns now = view_cursor_time(v);
		if (time_point_parse(p->buf, p->len, &tp, &why) != 0 ||
		    time_point_resolve(v->trace, &tp, &now, &t, &why) != 0) {
			view_message(v, true, "%s", why);
			rc = -1;
			break;
		}
		view_goto_time(v, t);
		break;
	}
	case PROMPT_RANGE: {
		struct range_spec rs;
		ttv_ns r0, r1, now = view_cursor_time(v);
		char *err = NULL;
		if (p->len == 0) {
			view_range_clear(v);
			break;
		}
		if (range_parse(p->buf, &rs, &err) != 0 ||
		    range_resolve(v->trace, &rs, &now, &r0, &r1, &err) != 0) {
			view_message(v, true, "%s", err ? err : "bad range");
			free(err);
			rc = -1;
			break;
		}
		view_range_set(v, r0, r1);
		char *out = range_outside(v->trace, r0, r1);
		if (out != NULL)
			view_message(v, true, "%s", out);
		else
			range_message(v);
		free(out);
		p->kind = PROMPT_NONE;
		return PANE_REDRAW | PANE_DATA;
	}
	case PROMPT_COMMAND: {
		/* NAME, or NAME ARG for a command that asks for something */
		char *arg = p->buf + strcspn(p->buf, " ");
		bool has_arg = *arg != '\0';
		if (has_arg) {
			*arg++ = '\0';
			arg += strspn(arg, " ");
		}
		enum cmd c = command_by_name(p->buf);
		if (c == CMD_NONE) {
			view_message(v, true, "no command '%s' (? lists them)",
			    p->buf);
			rc = -1;
			break;
		}
		p->kind = PROMPT_NONE;
		if (c == CMD_PANE_DIFF && has_arg && *arg != '\0') {
			/* :diff BASE, the path as typed */
			w->help = false;
			return diff_pane_load(v, arg);
		}
		if (c == CMD_SQL && has_arg) {
			if (*arg != '\0')
				w->help = false;	/* the SQL pane shows */
			return sql_pane_run(v, arg);
		}
		if (!has_arg || *arg == '\0')
			return run_command(w, c);
		return command_with_arg(w, c, arg);
	}
	default:
		break;
	}
	if (rc != 0 && (k == PROMPT_GOTO || k == PROMPT_RANGE)) {
		/* A time that did not parse leaves nothing worth editing:
		 * close the prompt, the message says what to type. */
		p->kind = PROMPT_NONE;
		return PANE_REDRAW;
	}
	if (rc != 0 && k != PROMPT_COMMAND) {
		/* Keep the prompt open on the bad input, pointing at the
		 * error where pcre2 says. */
		p->err_col = err_column(v->msg);
		return PANE_REDRAW;
	}
	p->kind = PROMPT_NONE;
	return PANE_REDRAW | PANE_DATA;
}

static int
prompt_key(struct viewer *w, int key)
{
	struct prompt *p = &w->prompt;

	switch (key) {
	case TK_ESC:
	case TK_CTRL('G'):
		p->kind = PROMPT_NONE;
		w->view.msg[0] = '\0';
		return PANE_REDRAW;
	case TK_ENTER:
		return prompt_submit(w);
	case TK_BACKSPACE:
	case TK_CTRL('H'):
		/* Delete one whole UTF-8 character. */
		while (p->len > 0 && ((unsigned char)p->buf[p->len - 1] &
		    0xc0) == 0x80)
			p->len--;
		if (p->len > 0)
			p->len--;
		else {
			p->kind = PROMPT_NONE;
		}
		break;
	case TK_CTRL('U'):
		p->len = 0;
		break;
	case TK_UP:
	case TK_DOWN:
		history_step(p, key == TK_UP ? -1 : 1);
		break;
	case TK_TAB:
		if (p->kind == PROMPT_COMMAND)
			complete_command(w);
		break;
	default:
		if (key >= 0x20 && key < 0x110000 && key != 0x7f &&
		    p->len + 4 < sizeof p->buf - 1)
			p->len += utf8_encode((uint32_t)key, p->buf + p->len);
		break;
	}
	p->buf[p->len] = '\0';
	p->err_col = 0;
	return PANE_REDRAW;
}

/* ------------------------------------------------------------- commands */

/* cmd_marker maps this range by arithmetic (cmd_pane the pane commands:
 * ui/panes.c). */
_Static_assert(CMD_EVENT_PREV - CMD_MARKER_NEXT == 9,
    "marker commands come in next/previous pairs");

/* Another pane in front, the key list closed. */
static void
set_pane(struct viewer *w, enum pane_id p)
{
	view_show_pane(&w->view, p);
	w->help = false;
	w->chooser = false;
}

/* The viewer's own commands: each is named by its row in the command
 * table (keys.c), which is how a key or `:NAME` reaches it. */

int
cmd_quit(struct viewer *w, enum cmd c)
{
	(void)w;
	(void)c;
	return PANE_QUIT;
}

int
cmd_help(struct viewer *w, enum cmd c)
{
	(void)c;
	w->help = !w->help;
	return PANE_REDRAW;
}

int
cmd_redraw(struct viewer *w, enum cmd c)
{
	(void)w;
	(void)c;
	term_invalidate();
	return PANE_REDRAW;
}

/* The prompt a command opens, or PROMPT_NONE. */
static enum prompt_kind
prompt_of(enum cmd c)
{
	switch (c) {
	case CMD_SEARCH: return PROMPT_SEARCH;
	case CMD_FILTER_SHOW: return PROMPT_SHOW;
	case CMD_FILTER_HIDE: return PROMPT_HIDE;
	case CMD_GOTO: return PROMPT_GOTO;
	case CMD_RANGE: return PROMPT_RANGE;
	case CMD_PROMPT: return PROMPT_COMMAND;
	default: return PROMPT_NONE;
	}
}

/* The commands that ask for a line: a command name, a search, a filter,
 * a time. */
int
cmd_prompt(struct viewer *w, enum cmd c)
{
	prompt_open(w, prompt_of(c), NULL);
	return PANE_REDRAW;
}

/* Whether pane id has something to show (pane.h). */
static bool
available(struct view *v, enum pane_id id)
{
	struct pane *p = v->panes[id];

	return p->cls->available == NULL || p->cls->available(p, v);
}

int
cmd_pane(struct viewer *w, enum cmd c)
{
	struct view *v = &w->view;
	int step = c == CMD_NEXT_PANE ? 1 : PANE_COUNT - 1;
	enum pane_id to = v->pane;

	if (c == CMD_NEXT_PANE || c == CMD_PREV_PANE) {
		/* Tab passes by the panes with nothing to show. */
		do
			to = (enum pane_id)((to + step) % PANE_COUNT);
		while (to != v->pane && !available(v, to));
		set_pane(w, to);
	} else	/* the pane commands are in pane order */
		set_pane(w, (enum pane_id)(PANE_TIMELINE +
		    (c - CMD_PANE_TIMELINE)));
	return PANE_REDRAW;
}

int
cmd_details(struct viewer *w, enum cmd c)
{
	(void)c;
	w->view.details = !w->view.details;
	return PANE_REDRAW;
}

int
cmd_window(struct viewer *w, enum cmd c)
{
	struct view *v = &w->view;

	switch (c) {
	case CMD_ZOOM_IN: view_zoom(v, 0.5); break;
	case CMD_ZOOM_OUT: view_zoom(v, 2.0); break;
	case CMD_PAN_LEFT: view_pan(v, -0.25); break;
	case CMD_PAN_RIGHT: view_pan(v, 0.25); break;
	default: view_reset(v); break;
	}
	return PANE_REDRAW | PANE_DATA;
}

int
cmd_search_step(struct viewer *w, enum cmd c)
{
	struct view *v = &w->view;

	if (c == CMD_SEARCH_CLEAR) {
		view_search_clear(v);
		view_message(v, false, "search cleared");
	} else
		view_search_jump(v, c == CMD_SEARCH_NEXT);
	return PANE_REDRAW;
}

int
cmd_filter_clear(struct viewer *w, enum cmd c)
{
	(void)c;
	view_clear_filters(&w->view);
	view_message(&w->view, false, "filters cleared");
	return PANE_REDRAW | PANE_DATA;
}

int
cmd_marker(struct viewer *w, enum cmd c)
{
	/* Pairs of next/previous, in the order of the kinds. */
	static const int kinds[] = { -1, MARKER_TSC_WRAP, VIEW_MARKER_BUFFER,
	    MARKER_CPU_CHANGE, MARKER_CUSTOM_EVENT };
	int i = c - CMD_MARKER_NEXT;

	view_marker_jump(&w->view, kinds[i / 2], i % 2 == 0);
	return PANE_REDRAW | PANE_DATA;
}

int
cmd_wall_clock(struct viewer *w, enum cmd c)
{
	struct view *v = &w->view;

	(void)c;
	if (v->trace->wall_origin == TTV_NS_MIN) {
		view_message(v, true, "this trace has no wall-clock time");
		return PANE_REDRAW;
	}
	v->wall_clock = !v->wall_clock;
	view_message(v, false, "times %s", v->wall_clock ? "of day, UTC" :
	    "from the trace start");
	return PANE_REDRAW;
}

/* The command prompt, ready for a query: the last one. */
int
cmd_sql(struct viewer *w, enum cmd c)
{
	char init[sizeof w->prompt.buf];
	const char *last = sql_pane_query(&w->view);

	(void)c;
	snprintf(init, sizeof init, "sql %s", last ? last : "");
	prompt_open(w, PROMPT_COMMAND, init);
	return PANE_REDRAW;
}

/* v and #: the callers/callees or the calls of the function the pane in
 * front has selected (the cursor's call in panes without one). */
int
cmd_calls(struct viewer *w, enum cmd c)
{
	struct view *v = &w->view;
	func_id f = pane_selected_func(v, v->pane);

	return calls_pane_open(v, c == CMD_PANE_CALLERS ? PANE_CALLERS :
	    PANE_INSTANCES, f);
}

/* V: the column chooser of the pane in front, when it has columns. */
int
cmd_columns(struct viewer *w, enum cmd c)
{
	(void)c;
	if (pane_column_set(w->view.panes[w->view.pane]) == NULL) {
		view_message(&w->view, true, "the %s pane has no columns to "
		    "choose (3 functions, # calls)", shown(&w->view)->title);
		return PANE_REDRAW;
	}
	w->chooser = !w->chooser;
	w->help = false;
	memset(&w->chooser_pos, 0, sizeof w->chooser_pos);
	return PANE_REDRAW;
}

/* O: the selected function's source in the user's editor. */
int
cmd_source(struct viewer *w, enum cmd c)
{
	struct view *v = &w->view;
	func_id f = pane_selected_func(v, v->pane);
	const char *file, *why;
	char *err = NULL;
	int line;

	(void)c;
	if (f == CALL_NONE) {
		view_message(v, true, "no function selected");
		return PANE_REDRAW;
	}
	if (source_of(v->source, f, &file, &line, &why) != 0) {
		view_message(v, true, "no source line for %s: %s",
		    trace_func_name(v->trace, f), why);
		return PANE_REDRAW;
	}
	if (source_edit(file, line, &err) != 0) {
		view_message(v, true, "%s", err);
		free(err);
	} else
		view_message(v, false, "%s: %s:%d", trace_func_name(v->trace,
		    f), file, line);
	return PANE_REDRAW;
}

/* The comparison's panes; without a base yet, the prompt asks for one
 * (":diff " and the path). */
int
cmd_diff(struct viewer *w, enum cmd c)
{
	struct view *v = &w->view;

	if (diff_pane_idle(v)) {
		prompt_open(w, PROMPT_COMMAND, "diff ");
		view_message(v, false, "the base trace to compare this one "
		    "with (a file or a CTF directory; Tab completes nothing)");
		return PANE_REDRAW;
	}
	if (c == CMD_PANE_DIFF_CALLS)
		return diff_pane_calls_open(v, v->pane);
	set_pane(w, (enum pane_id)(PANE_TIMELINE + (c - CMD_PANE_TIMELINE)));
	return PANE_REDRAW;
}

/* The range: its ends at the cursor, the selected call's span, or none. */
int
cmd_range(struct viewer *w, enum cmd c)
{
	struct view *v = &w->view;
	const struct trace *t = v->trace;
	ttv_ns at = view_cursor_time(v);
	ttv_ns r0 = v->range_on ? v->range_t0 : t->first;
	ttv_ns r1 = v->range_on ? v->range_t1 : t->last;
	bool swapped = false;

	switch (c) {
	case CMD_RANGE_START:
	case CMD_RANGE_END:
		/* One end at the cursor; an end past the other swaps them
		 * (and says so), one on the other is refused: nothing else
		 * moves. */
		if (c == CMD_RANGE_START ? at == r1 : at == r0) {
			view_message(v, true, "the range would be empty: its "
			    "%s is at the cursor", c == CMD_RANGE_START ?
			    "end" : "start");
			return PANE_REDRAW;
		}
		if (c == CMD_RANGE_START ? at > r1 : at < r0) {
			swapped = true;
			if (c == CMD_RANGE_START)
				r0 = r1, r1 = at;
			else
				r1 = r0, r0 = at;
		} else if (c == CMD_RANGE_START)
			r0 = at;
		else
			r1 = at;
		break;
	case CMD_RANGE_CALL:
		if (!v->has_cursor) {
			view_message(v, true, "no call selected");
			return PANE_REDRAW;
		}
		r0 = trace_slice(t, v->cursor)->start;
		r1 = trace_slice_end(t, v->cursor);
		if (r1 <= r0)
			r1 = r0 + 1;
		break;
	default:
		view_range_clear(v);
		view_message(v, false, "range cleared: panes follow the "
		    "window");
		return PANE_REDRAW | PANE_DATA;
	}
	view_range_set(v, r0, r1);
	if (swapped) {
		char buf[200];
		view_message(v, false, "%s: ends swapped, %s",
		    c == CMD_RANGE_START ? "a start after the end" :
		    "an end before the start", range_text(v, buf, sizeof buf));
	} else
		range_message(v);
	return PANE_REDRAW | PANE_DATA;
}

/* Set or go to a bookmark: the letter comes with the next key. */
int
cmd_bookmark(struct viewer *w, enum cmd c)
{
	w->pending = c;
	view_message(&w->view, false, "%s: press a letter a-z",
	    c == CMD_MARK_SET ? "set bookmark" : "go to bookmark");
	return PANE_REDRAW;
}

/* A command no pane took: its handler in the table, if it has one. */
static int
run_command(struct viewer *w, enum cmd c)
{
	const struct command *k = command_get(c);

	return k->run != NULL ? k->run(w, c) : PANE_UNHANDLED;
}

static int
handle_mouse(struct viewer *w)
{
	struct view *v = &w->view;
	struct rect r = w->main_rect;
	int x = w->ti.mouse_x, y = w->ti.mouse_y;
	enum mouse_button b = w->ti.mouse_button == TERM_CLICK ? MOUSE_CLICK :
	    w->ti.mouse_button == TERM_WHEEL_UP ? MOUSE_WHEEL_UP :
	    MOUSE_WHEEL_DOWN;

	if (w->prompt.kind != PROMPT_NONE || w->pending != CMD_NONE)
		return PANE_HANDLED;
	if (x < r.x || x >= r.x + r.w || y < r.y || y >= r.y + r.h)
		return PANE_HANDLED;
	v->msg[0] = '\0';
	w->chooser = false;
	if (w->help) {
		if (b != MOUSE_CLICK)
			for (int i = 0; i < 3; i++)
				help_command(&w->help_pos, b == MOUSE_WHEEL_UP ?
				    CMD_LIST_UP : CMD_LIST_DOWN);
		return PANE_REDRAW;
	}
	return pane_mouse(v, v->pane, r, x, y, b);
}

static int
handle_key(struct viewer *w, int key)
{
	struct view *v = &w->view;
	enum key_ctx ctx;
	enum cmd c;
	int flags;

	if (key == TK_RESIZE) {
		/* Repaint everything: after a shrink, curses' idea of the
		 * screen and the terminal's own reflow disagree, and cells the
		 * shadow thinks unchanged would stay blank. */
		grid_resize(w->grid, w->ti.w, w->ti.h);
		term_invalidate();
		return PANE_REDRAW;
	}
	if (key == TK_MOUSE)
		return handle_mouse(w);
	if (w->prompt.kind != PROMPT_NONE)
		return prompt_key(w, key);
	if (w->pending != CMD_NONE) {
		enum cmd p = w->pending;
		w->pending = CMD_NONE;
		if (key == TK_ESC) {
			v->msg[0] = '\0';
			return PANE_REDRAW;
		}
		if (p == CMD_MARK_SET)
			view_mark_set(v, key);
		else
			view_mark_jump(v, key);
		return PANE_REDRAW | PANE_DATA;
	}
	/* Esc first stops a pattern being matched (or a search), then a
	 * base trace being loaded or compared. */
	if (key == TK_ESC && view_regex_stop(v))
		return PANE_REDRAW | PANE_DATA;
	if (key == TK_ESC && diff_pane_stop(v))
		return PANE_REDRAW;
	/* A new key replaces the last message. */
	v->msg[0] = '\0';
	ctx = w->help ? CTX_HELP : w->chooser ? CTX_COLUMNS : shown(v)->ctx;
	c = keys_lookup(ctx, key);
	if (c == CMD_NONE) {
		if (key == TK_ESC && v->pane != PANE_TIMELINE) {
			set_pane(w, PANE_TIMELINE);
			return PANE_REDRAW;
		}
		return PANE_HANDLED;
	}
	if (w->chooser && !w->help) {
		const char *msg;
		struct column_set *cs = pane_column_set(v->panes[v->pane]);
		if (c == CMD_CLOSE || c == CMD_COLUMNS || cs == NULL) {
			w->chooser = false;
			return PANE_REDRAW;
		}
		flags = columns_command(cs, &w->chooser_pos, c, &msg);
		if (msg != NULL)
			view_message(v, true, "%s", msg);
		if (flags != PANE_UNHANDLED)
			return flags;
		/* any other key: the chooser closes, the key does its work */
		w->chooser = false;
	}
	if (w->help) {
		if (c == CMD_CLOSE || c == CMD_HELP) {
			w->help = false;
			return PANE_REDRAW;
		}
		flags = help_command(&w->help_pos, c);
		if (flags != PANE_UNHANDLED)
			return flags;
	} else {
		flags = pane_command(v, v->pane, c);
		if (flags != PANE_UNHANDLED)
			return flags;
	}
	return run_command(w, c);
}

/* ------------------------------------------------------------ following */

/* What the rate of new events counts: calls and instants. */
static uint64_t
count_events(const struct trace *t)
{
	uint64_t n = trace_nslices(t);

	for (uint32_t i = 0; i < t->ntracks; i++)
		n += t->tracks[i].ninstants;
	return n;
}

static void
follow_sample(struct viewer *w, const struct trace *t)
{
	w->samples[w->nsamples % FOLLOW_SAMPLES] = (struct follow_sample){
	    now_seconds(), count_events(t) };
	w->nsamples++;
}

/* The window at the end of the trace: the whole trace when it showed
 * the whole trace, else as wide as it is, its end at the trace's. */
static void
follow_to_end(struct view *v, bool whole)
{
	const struct trace *t = v->trace;
	ttv_ns last = view_last(v), width = v->t1 - v->t0;

	if (whole || width <= 0 || last - t->first <= width) {
		v->t0 = t->first;
		v->t1 = last > t->first ? last : t->first + 1;
	} else {
		v->t1 = last;
		v->t0 = last - width;
	}
	view_data_changed(v);
}

int
cmd_follow(struct viewer *w, enum cmd c)
{
	struct view *v = &w->view;

	(void)c;
	if (!w->can_follow) {
		view_message(v, true, "not following this trace (ttv --follow "
		    "TRACE follows one being written)");
		return PANE_REDRAW;
	}
	w->following = !w->following;
	if (w->following)
		follow_to_end(v, false);
	view_message(v, false, w->following ? "following: the window keeps to "
	    "the end as the trace grows (a move pauses, G again too)" :
	    "paused: the trace is still read; G follows the end again");
	return PANE_REDRAW | PANE_DATA;
}

/* The view moves to the newer trace nt: its state carried over, the old
 * trace freed (no job reads it: the caller saw to that). */
static void
swap_trace(struct viewer *w, struct trace **t, struct source_cache **source,
    struct viewer_diff *diff, struct trace *nt)
{
	struct view *v = &w->view;
	const struct trace *old = *t;
	ttv_ns old_last = view_last(v);
	bool whole = v->t0 <= old->first && v->t1 >= old_last;
	bool old_errors = old->has_errors;
	bool utf8 = v->utf8;
	struct view_carry *c = view_carry_take(v);
	/* a base being compared with is compared with the newer read */
	struct viewer_diff with_base;
	char *base_path = NULL;
	if (diff != NULL) {
		with_base = *diff;
		if (diff_pane_hand_over(v, &with_base, &base_path) == 1)
			diff = &with_base;
	}

	view_free(v);
	source_cache_free(*source);
	follower_discard(w->follower, *t);
	*t = nt;
	view_init(v, nt, utf8);
	*source = source_cache_new(nt, w->source_find, w->source_arg);
	v->source = *source;
	panes_create(v);
	/* the comparison's side of this trace: the trace as the view
	 * filters it (the command line's masks were the old read's) */
	struct selection none;
	selection_init(&none);
	diff_pane_setup(v, diff, &none);
	selection_clear(&none);
	free(base_path);
	view_carry_apply(c, v);
	view_carry_free(c);
	w->search_quiet = v->search_pending;
	if (w->following)
		follow_to_end(v, whole);
	if (nt->has_errors && !old_errors && nt->ndiags > 0)
		view_message(v, true, "damage while reading (ttv --info lists "
		    "it): %s", nt->diags[0].text);
	follow_sample(w, nt);
}

/* Takes what the follower read; swaps it in once nothing reads the
 * shown trace (a job, a comparison with a base). */
static void
follow_poll(struct viewer *w, struct trace **t, struct source_cache **source,
    struct viewer_diff *diff)
{
	if (w->follower == NULL)
		return;
	bool ended;
	struct trace *nt = follower_take(w->follower, &w->waiting, &ended);
	if (nt != NULL) {
		follower_discard(w->follower, w->held);
		w->held = nt;
	}
	/* a base being loaded or compared: the comparison first (a base
	 * loaded is handed over to the newer read by swap_trace) */
	w->held_by_diff = w->held != NULL && diff_pane_busy(&w->view);
	if (w->held != NULL && !jobs_busy(NULL) && !w->held_by_diff) {
		swap_trace(w, t, source, diff, w->held);
		w->held = NULL;
	}
	if (ended && !w->ended && w->held == NULL) {
		w->ended = true;
		w->lost = w->waiting != NULL;
		if (w->waiting != NULL)
			view_message(&w->view, true, "following ended: %s (the "
			    "trace stays as it was read)", w->waiting);
		else if (w->road.live)
			view_message(&w->view, false, "session ended: the "
			    "trace stays as it was read");
	}
}

void
viewer_set_follow(struct viewer *w, const struct viewer_follow *f)
{
	w->can_follow = true;
	w->road = *f;
}

/* What a key moves: the window, the cursor, the row of the pane in
 * front. A key that moves any pauses the following. */
struct place {
	ttv_ns t0, t1, cursor_t;
	bool has_cursor;
	struct slice_ref cursor;
	size_t sel;
};

static struct place
place_of(const struct view *v)
{
	return (struct place){ v->t0, v->t1, v->cursor_t, v->has_cursor,
	    v->cursor, v->panes[v->pane]->pos.sel };
}

static bool
place_moved(const struct place *a, const struct place *b)
{
	return a->t0 != b->t0 || a->t1 != b->t1 ||
	    a->cursor_t != b->cursor_t || a->has_cursor != b->has_cursor ||
	    memcmp(&a->cursor, &b->cursor, sizeof a->cursor) != 0 ||
	    a->sel != b->sel;
}

/* The filter the program made from the scope, as the view's own state
 * (thread picks, function pattern), so the thread pane and x see and
 * clear it. */
static void
apply_scope(struct viewer *w, const struct scope *sc, struct filter *f)
{
	struct view *v = &w->view;
	const struct trace *t = v->trace;

	if (sc->threads != NULL && f->track_on != NULL) {
		for (uint32_t i = 0; i < t->ntracks; i++)
			if (t->tracks[i].kind == TRACK_THREAD &&
			    f->track_on[i])
				v->thread_pick[i] = 1;
		view_apply_threads(v);
	}
	/* The pattern was matched already, within the budget. */
	if (sc->function != NULL || sc->hide != NULL) {
		view_filter_take(v, sc->function ? sc->function : sc->hide,
		    sc->hide != NULL, f->func_on);
		f->func_on = NULL;
	}
}

/* Several traces under one directory are one view: say which. */
static void
merged_message(struct view *v)
{
	const struct trace *t = v->trace;
	char buf[200];
	size_t n = 0, len = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < t->nmeta; i++) {
		const char *k = t->meta_keys[i];
		/* "trace N" names one trace's directory. */
		if (strncmp(k, "trace ", 6) != 0 || strchr(k + 6, ' ') != NULL)
			continue;
		int w = snprintf(buf + len, sizeof buf - len, "%s%s",
		    n ? ", " : "", t->meta_values[i]);
		if (w > 0 && len + (size_t)w < sizeof buf)
			len += (size_t)w;
		n++;
	}
	if (n > 1)
		view_message(v, false, "%zu traces merged: %s", n, buf);
}

struct viewer *
viewer_open(const char *path)
{
	struct viewer *w = xcalloc(1, sizeof *w);
	char *err = NULL;

	w->path = path;
	if (term_open(&w->ti, &err) != 0) {
		fprintf(stderr, "ttv: %s (use --info, --stats or --export "
		    "without a terminal)\n", err);
		free(err);
		free(w);
		return NULL;
	}
	timefmt_set_ascii(!w->ti.utf8);
	w->grid = grid_new(w->ti.w, w->ti.h, w->ti.utf8);
	/* A trace that shrinks under us ends ttv: with a sane terminal. */
	mapfile_on_bus(term_emergency_restore);
	clock_gettime(CLOCK_MONOTONIC, &w->load_start);
	w->load_last = w->load_start;
	grid_clear(w->grid);
	viewer_progress(w, 0, 0);
	return w;
}

void
viewer_set_source(struct viewer *w, source_find_fn find, void *arg)
{
	w->source_find = find;
	w->source_arg = arg;
}

void
viewer_set_index(struct viewer *w, const char *line)
{
	free(w->index_line);
	w->index_line = line != NULL ? xstrdup(line) : NULL;
}

void
viewer_loading(struct viewer *w, const char *path)
{
	w->loading = path;
	/* A new load's rate from its own start. */
	clock_gettime(CLOCK_MONOTONIC, &w->load_start);
	w->load_last = w->load_start;
}

void
viewer_close(struct viewer *w)
{
	term_close();
	grid_free(w->grid);
	free(w->index_line);
	free(w);
}

int
viewer_run(struct viewer *wp, struct trace *t, struct selection *sel,
    const struct scope *sc, bool keep_state, struct viewer_diff *diff)
{
	/* From here on the viewer is this function's: the terminal and
	 * the grid viewer_open made are moved into it. */
	struct viewer w = *wp;
	int cx, cy, flags, rc;

	free(wp);
	view_init(&w.view, t, w.ti.utf8);
	w.view.index_line = w.index_line;
	struct source_cache *source = source_cache_new(t, w.source_find,
	    w.source_arg);
	w.view.source = source;
	panes_create(&w.view);
	/* The comparison's side of this trace is the command line's
	 * selection, before the view takes its masks. */
	diff_pane_setup(&w.view, diff, sel);
	apply_scope(&w, sc, &sel->f);
	merged_message(&w.view);
	if (keep_state && state_load(&w.view, w.path, scope_filters(sc),
	    w.can_follow) &&
	    w.view.msg[0] == '\0')
		view_message(&w.view, false, "state of the last session "
		    "restored (--no-state starts afresh)");
	if (t->ndiags > 0) {
		/* The first one in full: often all there is to know (a
		 * binary not found and --sysroot, a damaged tail). */
		char merged[sizeof w.view.msg];
		snprintf(merged, sizeof merged, "%s", w.view.msg);
		view_message(&w.view, t->has_errors, "%zu problem%s while "
		    "reading (ttv --info lists them): %s%s%s", t->ndiags,
		    t->ndiags == 1 ? "" : "s", t->diags[0].text,
		    merged[0] ? "; " : "", merged);
	}

	if (w.can_follow) {
		w.following = true;
		follow_sample(&w, t);
		w.follower = follower_start(&w.road);
	}
	for (;;) {
		int key;

		bool searching = w.view.search_pending;

		struct place before, after;
		if (view_collect(&w.view) && searching &&
		    !w.view.search_pending && w.view.match != NULL) {
			/* a search found again in a newer read moves
			 * nothing; one asked for jumps to its first hit,
			 * which is a move (it pauses the following) */
			before = place_of(&w.view);
			if (!w.search_quiet)
				search_done(&w.view, true);
			w.search_quiet = false;
			after = place_of(&w.view);
			if (place_moved(&before, &after))
				w.following = false;
		}
		follow_poll(&w, &t, &source, diff);
		render(&w, &cx, &cy);
		term_draw(w.grid, cx, cy);
		term_sentinel(w.events);
		/* While the worker runs, look for its results every 50 ms;
		 * while following, for a newer trace ten times a second;
		 * otherwise sleep until a key comes. */
		int wait = jobs_busy(NULL) ? 50 : -1;
		if (w.follower != NULL && (!w.ended || w.held != NULL) &&
		    wait < 0)
			wait = 100;
		key = term_getkey(&w.ti, wait);
		if (term_quit_requested())
			break;
		if (key == TK_NONE)
			continue;
		w.events++;
		before = place_of(&w.view);
		bool was_following = w.following;
		flags = handle_key(&w, key);
		if (flags & PANE_QUIT)
			break;
		after = place_of(&w.view);
		if (was_following && w.following && place_moved(&before,
		    &after))
			w.following = false;
	}
	/* the follower's thread first: it may be reading */
	follower_stop(w.follower);
	if (w.held != NULL)
		trace_free(w.held);
	term_close();
	char *state_err = NULL;
	/* A pane that needs more than the trace (a comparison's, its base)
	 * could not be shown by the next session: the timeline is saved. */
	if (shown(&w.view)->available != NULL)
		view_show_pane(&w.view, PANE_TIMELINE);
	if (keep_state && state_save(&w.view, w.path, &state_err) != 0) {
		fputs("ttv: warning: state not saved: ", stderr);
		escape_fputs(state_err, stderr);
		putc('\n', stderr);
		free(state_err);
	}
	if (!jobs_stop()) {
		/* A query still runs on the trace: leave it to the end of
		 * the process instead of making the user wait. */
		grid_free(w.grid);
		return t->has_errors || w.lost ? 1 : 0;
	}
	rc = t->has_errors || w.lost ? 1 : 0;
	view_free(&w.view);
	free(w.index_line);
	source_cache_free(source);
	grid_free(w.grid);
	for (size_t k = 0; k <= PROMPT_COMMAND; k++)
		for (size_t i = 0; i < w.prompt.history[k].n; i++)
			free(w.prompt.history[k].lines[i]);
	trace_free(t);
	/* A damaged trace was shown as far as it could be read: the exit
	 * status still says it was damaged (see EXIT STATUS in ttv(1)). */
	return rc;
}
