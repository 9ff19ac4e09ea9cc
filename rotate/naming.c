/*
 * naming.c - output file names: the node name filter, building and
 * recognising names.
 *
 * Which characters a node name keeps. Flamescope refuses a profile whose
 * path has a character matching (app/common/fileutil.py)
 *
 *     invalidchars = re.compile('[^a-zA-Z0-9.,/_%+: -\\\\]')
 *
 * i.e. the regex class [^a-zA-Z0-9.,/_%+: -\\]. Its tail " -\\" is a RANGE
 * from space (0x20) to backslash (0x5c), not three characters, so it allows
 * all printable ASCII except ] ^ ` { | } ~ (and rejects controls, DEL and
 * every non-ASCII byte). '@' (0x40) is inside the range: "app@db1" may stay
 * as it is. We keep far less than Flamescope allows: only [A-Za-z0-9._@+,-].
 * Space, quotes, $, *, ?, ;, &, (, ), [, \ and the like pass Flamescope
 * but make shell one-liners and cron lines over the output dir fragile; ':'
 * passes too, but "flameprof_a:b_..." reads as host:path to scp and rsync;
 * '/' would leave the directory. Everything else, byte by byte (UTF-8 is not
 * decoded), becomes %XX with upper-case hex. '%' itself is escaped, so the
 * encoding is reversible and two different node names never share a name
 * (unless cut at ROT_NODE_MAX).
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "codec.h"
#include "naming.h"

static int node_char_kept(unsigned char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
	       (ch >= '0' && ch <= '9') || (ch && strchr("._@+,-", ch) != NULL);
}

void rot_name_node(char *out, const char *node)
{
	static const char hex[] = "0123456789ABCDEF";
	const unsigned char *s = (const unsigned char *)(node && *node ? node : "nonode");
	size_t n = 0;

	for (; *s; s++) {
		if (node_char_kept(*s)) {
			if (n + 1 > ROT_NODE_MAX)
				break;
			out[n++] = (char)*s;
		} else {
			if (n + 3 > ROT_NODE_MAX)       /* never cut an escape in two */
				break;
			out[n++] = '%';
			out[n++] = hex[*s >> 4];
			out[n++] = hex[*s & 15];
		}
	}
	out[n] = '\0';
}

/* "YYYYmmddTHHMMSS.mmmZ" in UTC; floor division so times before 1970 still
 * give a valid clock reading. Years are kept to 4 digits so every stamp has
 * the same length and names sort by time. */
void rot_name_stamp(char *out, int64_t time_us)
{
	int64_t sec = time_us / 1000000, us = time_us % 1000000;
	unsigned ms;
	struct tm tm;
	time_t t;

	if (us < 0) {
		us += 1000000;
		sec -= 1;
	}
	ms = (unsigned)(us / 1000);
	t = (time_t)sec;
	if (!gmtime_r(&t, &tm) || tm.tm_year < 1000 - 1900 || tm.tm_year > 9999 - 1900) {
		memset(&tm, 0, sizeof tm);
		tm.tm_year = 1000 - 1900;
		tm.tm_mday = 1;
		ms = 0;
	}
	if (strftime(out, ROT_STAMP_LEN + 1, "%Y%m%dT%H%M%S", &tm) != 15)
		memcpy(out, "10000101T000000", 16);
	out[15] = '.';
	out[16] = (char)('0' + ms / 100);
	out[17] = (char)('0' + ms / 10 % 10);
	out[18] = (char)('0' + ms % 10);
	out[19] = 'Z';
	out[20] = '\0';
}

void rot_name_file(char *out, const char *fnode, int64_t time_us, unsigned seq,
		   enum rot_codec codec)
{
	char st[ROT_STAMP_LEN + 1], sfx[16] = "";

	rot_name_stamp(st, time_us);
	if (seq)
		snprintf(sfx, sizeof sfx, "-%u", seq);
	snprintf(out, ROT_NAME_MAX, "flameprof_%s_%s%s.perf%s", fnode, st, sfx,
		 rot_codec_ext(codec));
}

static int digits(const char *s, int n)
{
	for (int i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return 0;
	return 1;
}

int rot_name_parse(const char *name, const char *fnode, char *st, unsigned long *seq)
{
	static const char *const exts[] = { ".perf", ".perf.zst", ".perf.gz" };
	size_t nl = strlen(fnode);
	const char *p = name;

	if (strncmp(p, "flameprof_", 10) != 0)
		return 0;
	p += 10;
	if (strncmp(p, fnode, nl) != 0 || p[nl] != '_')
		return 0;
	p += nl + 1;
	/* The stamp's shape, strictly: so node "a" never claims "a_b"'s files. */
	if (strlen(p) < ROT_STAMP_LEN || !digits(p, 8) || p[8] != 'T' || !digits(p + 9, 6) ||
	    p[15] != '.' || !digits(p + 16, 3) || p[19] != 'Z')
		return 0;
	memcpy(st, p, ROT_STAMP_LEN);
	st[ROT_STAMP_LEN] = '\0';
	p += ROT_STAMP_LEN;
	*seq = 0;
	if (*p == '-') {
		int n = 0;
		p++;
		while (p[n] >= '0' && p[n] <= '9' && n < 9)
			*seq = *seq * 10 + (unsigned long)(p[n++] - '0');
		if (n == 0)
			return 0;
		p += n;
	}
	for (size_t i = 0; i < sizeof exts / sizeof exts[0]; i++)
		if (strcmp(p, exts[i]) == 0)
			return 1;
	return 0;
}
