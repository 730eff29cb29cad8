/*
 * net:// URLs, babeltrace2's form: net://HOST[:PORT]/host/HOSTNAME/SESSION
 * (HOST may be [IPv6]), or net://HOST[:PORT] for the relay alone. The
 * names are kept as given (they are matched byte for byte against the
 * relay's), but must fit the relay's fields and hold no control byte.
 */
#include <stdlib.h>
#include <string.h>

#include "live.h"
#include "xalloc.h"

bool
live_url_is(const char *s)
{
	return s != NULL && strncmp(s, "net://", 6) == 0;
}

static bool
has_control(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return true;
	return false;
}

int
live_url_parse(const char *s, struct live_url *u, char **err)
{
	*u = (struct live_url){ 0 };
	*err = NULL;
	if (!live_url_is(s)) {
		*err = xstrdup("not a live URL (net://HOST[:PORT]/host/"
		    "HOSTNAME/SESSION)");
		return -1;
	}
	if (has_control(s, strlen(s))) {
		*err = xstrdup("a control character in the URL");
		return -1;
	}
	const char *p = s + 6, *host, *hend, *port = NULL, *pend = NULL;
	if (*p == '[') {
		host = p + 1;
		hend = strchr(host, ']');
		if (hend == NULL) {
			*err = xstrdup("an IPv6 address without its ']'");
			return -1;
		}
		p = hend + 1;
	} else {
		host = p;
		hend = p + strcspn(p, ":/");
		p = hend;
	}
	if (hend == host) {
		*err = xstrdup("no host in the URL");
		return -1;
	}
	if (*p == ':') {
		port = p + 1;
		pend = port + strcspn(port, "/");
		p = pend;
		long v = 0;
		for (const char *q = port; q < pend; q++)
			if (*q < '0' || *q > '9' || (v = v * 10 + (*q - '0')) >
			    65535) {
				v = -1;
				break;
			}
		if (pend == port || v <= 0) {
			*err = xstrdup("the port must be a number from 1 to "
			    "65535");
			return -1;
		}
	} else if (*p != '/' && *p != '\0') {
		*err = xstrdup("unexpected text after the host");
		return -1;
	}
	if (*p == '/' && p[1] == '\0')
		p++;
	if (*p != '\0') {
		const char *name, *nend;
		if (strncmp(p, "/host/", 6) != 0) {
			*err = xstrdup("expected /host/HOSTNAME/SESSION after "
			    "the host");
			return -1;
		}
		name = p + 6;
		nend = strchr(name, '/');
		if (nend == NULL || nend == name || nend[1] == '\0' ||
		    strchr(nend + 1, '/') != NULL) {
			*err = xstrdup("expected /host/HOSTNAME/SESSION after "
			    "the host");
			return -1;
		}
		if ((size_t)(nend - name) >= LIVE_HOST_NAME_MAX ||
		    strlen(nend + 1) >= LIVE_NAME_MAX) {
			*err = xasprintf("a host name is at most %d bytes, a "
			    "session name at most %d", LIVE_HOST_NAME_MAX - 1,
			    LIVE_NAME_MAX - 1);
			return -1;
		}
		u->hostname = xstrndup(name, (size_t)(nend - name));
		u->session = xstrdup(nend + 1);
	}
	u->text = xstrdup(s);
	u->host = xstrndup(host, (size_t)(hend - host));
	u->port = port ? xstrndup(port, (size_t)(pend - port)) :
	    xstrdup(LIVE_DEFAULT_PORT);
	return 0;
}

void
live_url_free(struct live_url *u)
{
	free(u->text);
	free(u->host);
	free(u->port);
	free(u->hostname);
	free(u->session);
	*u = (struct live_url){ 0 };
}
