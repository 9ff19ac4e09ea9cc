/*
 * test_replies.c - what a node, its epmd and the cookie file can hand
 * flameprof, without a node: rex replies (node/rex_reply.c), epmd's
 * answers (node/epmd_reply.c), distribution packets' control messages
 * (node/packet.c), text for the terminal
 * (common/ctl_escape.c) and the cookie file's rules (node/cookie.c).
 * Each hostile case is refused within its buffer; ASan watches the rest.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <ei.h>

#include "ei_enc.h"
#include "tap.h"
#include "../../common/ctl_escape.h"
#include "../../node/epmd_reply.h"
#include "../../node/rex_reply.h"
#include "../../node/node.h"
#include "../../node/packet.h"


/* {rex, R} with R encoded by the caller after this. */
static void rex_begin(ei_x_buff *x)
{
	E(ei_x_new_with_version(x));
	E(ei_x_encode_tuple_header(x, 2));
	E(ei_x_encode_atom(x, "rex"));
}

/* Opens x as a reply, from an exact-size copy (ASan sees an over-read). */
static int open_x(const ei_x_buff *x, struct node_rex_reply *r, char **copy)
{
	*copy = malloc((size_t)x->index);
	if (!*copy)
		abort();
	memcpy(*copy, x->buff, (size_t)x->index);
	return node_rex_reply_open(*copy, (size_t)x->index, r);
}

static void test_rex_word(void)
{
	ei_x_buff x;
	struct node_rex_reply r;
	char *c, otp[16];

	rex_begin(&x);
	E(ei_x_encode_string(&x, "25"));
	is_int(open_x(&x, &r, &c), 0, "{rex, \"25\"} opens");
	is_int(node_rex_reply_word(&r, otp, sizeof otp), 0, "\"25\" is a release");
	is_str(otp, "25", "... read as 25");
	free(c); ei_x_free(&x);

	/* the heap overflow of issue 18: 6,000 bytes for a 16-byte buffer */
	char *big = malloc(6001);
	memset(big, '9', 6000);
	big[6000] = '\0';
	rex_begin(&x);
	E(ei_x_encode_string(&x, big));
	is_int(open_x(&x, &r, &c), 0, "{rex, <6,000 digits>} opens");
	memset(otp, 'x', sizeof otp);
	is_int(node_rex_reply_word(&r, otp, sizeof otp), -1, "6,000 digits are no release for a 16-byte buffer");
	is_str(otp, "", "... and nothing is written but the empty string");
	free(c); ei_x_free(&x); free(big);

	/* a list that is not bytes: LIST_EXT of wide integers */
	rex_begin(&x);
	E(ei_x_encode_list_header(&x, 3));
	for (int k = 0; k < 3; k++)
		E(ei_x_encode_long(&x, 300));
	E(ei_x_encode_empty_list(&x));
	open_x(&x, &r, &c);
	is_int(node_rex_reply_word(&r, otp, sizeof otp), -1, "[300, 300, 300] is no release");
	free(c); ei_x_free(&x);

	/* bytes, sent as a proper list (small integers) */
	rex_begin(&x);
	E(ei_x_encode_list_header(&x, 2));
	E(ei_x_encode_long(&x, '2'));
	E(ei_x_encode_long(&x, '6'));
	E(ei_x_encode_empty_list(&x));
	open_x(&x, &r, &c);
	is_int(node_rex_reply_word(&r, otp, sizeof otp), 0, "[$2, $6] as LIST_EXT is a release");
	is_str(otp, "26", "... read as 26");
	free(c); ei_x_free(&x);

	const char *bad[] = { "25\033]0;x\a", "", "2 5", "25\n" };
	for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
		rex_begin(&x);
		E(ei_x_encode_string(&x, bad[k]));
		open_x(&x, &r, &c);
		is_int(node_rex_reply_word(&r, otp, sizeof otp), -1, "release %zu with a byte a release never has: refused", k);
		free(c); ei_x_free(&x);
	}
	rex_begin(&x);
	E(ei_x_encode_atom(&x, "25"));
	open_x(&x, &r, &c);
	is_int(node_rex_reply_word(&r, otp, sizeof otp), -1, "the atom '25' is no release");
	free(c); ei_x_free(&x);
}

static void test_rex_open(void)
{
	ei_x_buff x;
	struct node_rex_reply r;
	char *c;

	E(ei_x_new_with_version(&x));
	E(ei_x_encode_tuple_header(&x, 2));
	E(ei_x_encode_atom(&x, "rax"));
	E(ei_x_encode_atom(&x, "true"));
	is_int(open_x(&x, &r, &c), -1, "{rax, true} is no rex reply");
	free(c);
	x.index--; /* cut inside the last atom */
	is_int(open_x(&x, &r, &c), -1, "a cut reply is refused before decoding");
	free(c); ei_x_free(&x);

	rex_begin(&x);
	E(ei_x_encode_atom(&x, "true"));
	E(ei_x_encode_atom(&x, "extra"));
	is_int(open_x(&x, &r, &c), -1, "a reply followed by another term is refused");
	free(c); ei_x_free(&x);

	/* nesting beyond term_check's 64 levels */
	rex_begin(&x);
	for (int k = 0; k < 100; k++)
		E(ei_x_encode_list_header(&x, 1));
	E(ei_x_encode_atom(&x, "x"));
	for (int k = 0; k < 100; k++)
		E(ei_x_encode_empty_list(&x));
	is_int(open_x(&x, &r, &c), -1, "a reply nested 100 deep is refused");
	free(c); ei_x_free(&x);
}

static void test_rex_readers(void)
{
	ei_x_buff x;
	struct node_rex_reply r;
	char *c, small[4];
	erlang_pid p;
	int found, a, b;
	size_t n;

	rex_begin(&x);
	E(ei_x_encode_atom(&x, "undefined"));
	open_x(&x, &r, &c);
	is_int(node_rex_reply_pid(&r, &p), -1, "undefined is not a pid");
	is_int(node_rex_reply_atom(&r, small, sizeof small), -1, "an atom longer than the buffer is refused");
	ok(node_rex_reply_atom_is(&r, "undefined"), "... and is what it is");
	is_int(node_rex_reply_ref(&r, &a, &b), -1, "undefined is not a reference");
	is_int(node_rex_reply_has_atom(&r, "a", 10, &found), -1, "undefined is not a list of nodes");
	free(c); ei_x_free(&x);

	rex_begin(&x);
	E(ei_x_encode_list_header(&x, 20));
	for (int k = 0; k < 20; k++)
		E(ei_x_encode_atom(&x, k == 19 ? "me@host" : "other@host"));
	E(ei_x_encode_empty_list(&x));
	open_x(&x, &r, &c);
	is_int(node_rex_reply_has_atom(&r, "me@host", 20, &found), 0, "a list of 20 nodes is read");
	ok(found, "... and the last one is found");
	is_int(node_rex_reply_has_atom(&r, "me@host", 19, &found), -1, "a list longer than the bound is refused");
	free(c); ei_x_free(&x);

	rex_begin(&x);
	E(ei_x_encode_binary(&x, "0123456789", 10));
	open_x(&x, &r, &c);
	is_int(node_rex_reply_binary_size(&r, 10, &n), 0, "a binary of 10 bytes within 10");
	is_int(n, 10, "... of size 10");
	is_int(node_rex_reply_binary_size(&r, 9, &n), -1, "a binary of 10 bytes over a bound of 9 is refused");
	free(c); ei_x_free(&x);

	char why[8];
	rex_begin(&x);
	E(ei_x_encode_tuple_header(&x, 2));
	E(ei_x_encode_atom(&x, "error"));
	E(ei_x_encode_atom(&x, "a_reason_longer_than_the_buffer"));
	open_x(&x, &r, &c);
	is_int(node_rex_reply_loaded(&r, why, sizeof why), 0, "{error, Long} is not loaded");
	ok(strlen(why) < sizeof why, "... and why stays within its buffer ('%s')", why);
	free(c); ei_x_free(&x);
}

static void test_epmd(void)
{
	static const unsigned char port[] = { 119, 0, 0x9c, 0x41, 77, 0 };
	is_int(node_epmd_port_reply(port, sizeof port), 40001, "PORT2_RESP: port 40001");
	static const unsigned char unknown[] = { 119, 1 };
	is_int(node_epmd_port_reply(unknown, 2), 0, "PORT2_RESP with a result: the node is unknown");
	is_int(node_epmd_port_reply(port, 3), -1, "a PORT2_RESP cut before its port: no valid answer");
	static const unsigned char zero[] = { 119, 0, 0, 0 };
	is_int(node_epmd_port_reply(zero, 4), -1, "port 0: no valid answer");
	static const unsigned char other[] = { 118, 0, 1, 1 };
	is_int(node_epmd_port_reply(other, 4), -1, "another reply code: no valid answer");

	static const char names[] = "\0\0\x11\x11name app at port 1\nname \033]0;pwn\a at port 2\n"
				    "name b-2_c at port 3\nname  at port 4\nnamex y at port 5\nname cut";
	char out[64];
	node_epmd_names_reply((const unsigned char *)names, sizeof names - 1, out, sizeof out);
	is_str(out, "'app', 'b-2_c'", "NAMES_RESP: node names kept, a name with escapes and broken lines left out");
	char tiny[8];
	node_epmd_names_reply((const unsigned char *)names, sizeof names - 1, tiny, sizeof tiny);
	is_str(tiny, "'app'", "... within a small buffer, whole names only");
}

static void test_escape(void)
{
	/* input (its length: a NUL among it), what a terminal gets */
	static const struct {
		const char *in;
		size_t n;
		const char *want, *what;
	} cases[] = {
		{ "a\033[31mb\n", 8, "a\\x1b[31mb\\x0a", "ESC and newline become \\xNN" },
		{ "x\xc2\x9by", 4, "x\\x9by", "a C1 control (U+009B, CSI) becomes \\x9b" },
		{ "caf\xc3\xa9 \x7f", 7, "caf\xc3\xa9 \\x7f", "UTF-8 passes, DEL is escaped" },
		{ "a\0b", 3, "a\\x00b", "a NUL byte is shown, not cut at" },
		{ "x\x9by", 3, "x\\x9by", "a lone 0x9b (CSI to an 8-bit terminal) becomes \\x9b" },
		{ "\xff\xc3(\xe2\x82", 5, "\\xff\\xc3(\\xe2\\x82", "every byte of ill-formed UTF-8 is shown as \\xNN" },
		{ "\xe2\x82\xac\xf0\x9f\x98\x80", 7, "\xe2\x82\xac\xf0\x9f\x98\x80", "3- and 4-byte characters pass" },
		/* what breaks or reorders a line (issue 50) */
		{ "a\xe2\x80\xa8" "b\xe2\x80\xa9" "c", 9, "a\\u2028b\\u2029c",
		  "the line and paragraph separators become \\u2028, \\u2029" },
		{ "x\xe2\x80\xaey\xe2\x81\xa6z\xe2\x80\x8f\xd8\x9c", 14, "x\\u202ey\\u2066z\\u200f\\u061c",
		  "bidirectional controls (RLO, LRI, RLM, ALM) become \\uNNNN" },
		{ "\xe2\x80\xa7\xe2\x80\xaf\xe2\x81\xaa", 9, "\xe2\x80\xa7\xe2\x80\xaf\xe2\x81\xaa",
		  "their neighbours (U+2027, U+202F, U+206A) pass" },
	};
	char out[64];
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		fp_ctl_escape(out, sizeof out, cases[k].in, cases[k].n);
		is_str(out, cases[k].want, "%s", cases[k].what);
	}
	char small[4];
	fp_ctl_escape(small, sizeof small, "ab\xc3\xa9", 4);
	is_str(small, "ab", "cut at the buffer's end without half a character");
	char five[5];
	fp_ctl_escape(five, sizeof five, "\033\033", 2);
	is_str(five, "\\x1b", "an escape that does not fit is left out whole");
	char six[6];
	fp_ctl_escape(six, sizeof six, "\xe2\x80\xae", 3);
	is_str(six, "", "a \\uNNNN that does not fit is left out whole");
	char big[4 * 30 + 1];
	memset(big, 0, sizeof big);
	{
		char in[30];
		for (int k = 0; k < 30; k += 3)
			memcpy(in + k, "\xe2\x80\xae", 3);
		is_int(fp_ctl_escape(big, sizeof big, in, 30), 60, "ten of them in 4 bytes out a byte in: all there");
	}
}

static void test_cookie(void)
{
	char dir[] = "/tmp/fp-cookie-XXXXXX", path[64], buf[64], err[512];
	if (!mkdtemp(dir))
		abort();
	snprintf(path, sizeof path, "%s/c", dir);
	FILE *f = fopen(path, "w");
	fputs("secret\n", f);
	fclose(f);

	chmod(path, 0400);
	is_int(node_read_cookie(path, buf, sizeof buf, err, sizeof err), 0, "mode 0400: read");
	is_str(buf, "secret", "... without the newline");
	chmod(path, 0600);
	is_int(node_read_cookie(path, buf, sizeof buf, err, sizeof err), 0, "mode 0600: read");
	static const mode_t loose[] = { 0644, 0640, 0604, 0660, 0602 };
	for (size_t k = 0; k < sizeof loose / sizeof loose[0]; k++) {
		chmod(path, loose[k]);
		memset(buf, 0, sizeof buf);
		is_int(node_read_cookie(path, buf, sizeof buf, err, sizeof err), -1, "mode %04o: refused",
		       (unsigned)loose[k]);
		ok(strstr(err, "must be accessible by its owner only") && strstr(err, "chmod 400"),
		   "... as erl refuses it, with the way out: %s", err);
		ok(buf[0] == '\0', "... and nothing is read");
	}
	unlink(path);

	if (mkfifo(path, 0600) == 0) {
		struct timespec t0, t1;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		is_int(node_read_cookie(path, buf, sizeof buf, err, sizeof err), -1, "a FIFO: refused");
		clock_gettime(CLOCK_MONOTONIC, &t1);
		ok(strstr(err, "not a regular file") != NULL, "... as not a regular file: %s", err);
		ok(t1.tv_sec - t0.tv_sec < 5, "... without waiting for a writer");
		unlink(path);
	}
	is_int(node_read_cookie(dir, buf, sizeof buf, err, sizeof err), -1, "a directory: refused");
	rmdir(dir);
}

/* A file of `uid`'s holding "secret", mode 0400. */
static void own_cookie(const char *p, uid_t uid)
{
	FILE *f = fopen(p, "w");
	if (!f)
		abort();
	fputs("secret\n", f);
	fclose(f);
	if (chmod(p, 0400) != 0 || chown(p, uid, uid) != 0)
		abort();
}

/* A symbolic link at p to target, owned by uid. */
static void link_of(const char *target, const char *p, uid_t uid)
{
	if (symlink(target, p) != 0 || lchown(p, uid, uid) != 0)
		abort();
}

/* A link to a cookie is followed only when root or the file's owner owns
 * it (issue 50): another user's link to a root-only file is refused,
 * naming the link and both owners; root's link, and a user's own link to
 * the user's own file (the cron setup), are read; a link on the way to a
 * directory counts as much as one to the file. Needs root (lchown). */
static void test_cookie_links(void)
{
	char dir[] = "/tmp/fp-cookie-links-XXXXXX", p[8][200], buf[64], err[1024];
	const uid_t nobody = 65534;
	if (geteuid() != 0) {
		printf("ok %d # SKIP links to a cookie: needs root to give a link to another user\n", ++tap_count);
		return;
	}
	if (!mkdtemp(dir))
		abort();
	snprintf(p[0], sizeof p[0], "%s/root_secret", dir);
	snprintf(p[1], sizeof p[1], "%s/nobody_link", dir);
	snprintf(p[2], sizeof p[2], "%s/root_link", dir);
	snprintf(p[3], sizeof p[3], "%s/app_cookie", dir);
	snprintf(p[4], sizeof p[4], "%s/app_link", dir);
	snprintf(p[5], sizeof p[5], "%s/sub", dir);
	snprintf(p[6], sizeof p[6], "%s/nobody_dir_link", dir);
	own_cookie(p[0], 0);
	own_cookie(p[3], nobody);

	link_of(p[0], p[1], nobody);
	is_int(node_read_cookie(p[1], buf, sizeof buf, err, sizeof err), -1,
	       "another user's link to a root-only file: refused");
	ok(strstr(err, p[1]) && strstr(err, "is a symbolic link of user") && strstr(err, "uid 65534") &&
	   strstr(err, "uid 0") && strstr(err, "give the file's own path"),
	   "... naming the link and both owners: %s", err);
	is_int(node_read_cookie(p[0], buf, sizeof buf, err, sizeof err), 0, "the file by its own path: read");

	link_of(p[3], p[2], 0);
	is_int(node_read_cookie(p[2], buf, sizeof buf, err, sizeof err), 0,
	       "root's link to a user's file: read (root's link may point anywhere)");
	is_str(buf, "secret", "... the cookie");
	link_of("app_cookie", p[4], nobody); /* relative */
	is_int(node_read_cookie(p[4], buf, sizeof buf, err, sizeof err), 0,
	       "a user's own link to the user's own file, as root reads it from cron: read");

	/* a link to a directory on the way: sub/x is root's file */
	if (mkdir(p[5], 0700) != 0)
		abort();
	char sub_file[256], via[256], chain[256];
	snprintf(sub_file, sizeof sub_file, "%s/x", p[5]);
	own_cookie(sub_file, 0);
	link_of(p[5], p[6], nobody);
	snprintf(via, sizeof via, "%s/x", p[6]);
	is_int(node_read_cookie(via, buf, sizeof buf, err, sizeof err), -1,
	       "another user's link to root's directory, on the way: refused");
	ok(strstr(err, p[6]) != NULL, "... naming that link: %s", err);
	/* root's link to another user's link to root's file */
	snprintf(chain, sizeof chain, "%s/chain", dir);
	link_of(p[1], chain, 0);
	is_int(node_read_cookie(chain, buf, sizeof buf, err, sizeof err), -1,
	       "root's link to another user's link to root's file: refused");
	ok(strstr(err, p[1]) != NULL, "... naming the other user's link: %s", err);
	/* a loop and a dangling link: said as the kernel says them */
	snprintf(p[7], sizeof p[7], "%s/loop", dir);
	link_of("loop", p[7], 0);
	is_int(node_read_cookie(p[7], buf, sizeof buf, err, sizeof err), -1, "a link to itself: refused");
	ok(strstr(err, "symbolic links") != NULL, "... too many levels: %s", err);
	unlink(p[7]);
	link_of("nowhere", p[7], 0);
	is_int(node_read_cookie(p[7], buf, sizeof buf, err, sizeof err), -1, "a dangling link: refused");
	ok(strstr(err, "No such file") != NULL, "... no such file: %s", err);

	for (int k = 7; k >= 0; k--)
		if (k != 5)
			unlink(p[k]);
	unlink(chain);
	unlink(sub_file);
	rmdir(p[5]);
	rmdir(dir);
}

/* A packet as the node sends it, without its length: pass-through, the
 * control message ctl (with its version byte), then payload, if any. */
static char *packet(const ei_x_buff *ctl, const ei_x_buff *payload, size_t *len)
{
	*len = 1 + (size_t)ctl->index + (payload ? (size_t)payload->index : 0);
	char *b = malloc(*len);
	if (!b)
		abort();
	b[0] = ERL_PASS_THROUGH;
	memcpy(b + 1, ctl->buff, (size_t)ctl->index);
	if (payload)
		memcpy(b + 1 + ctl->index, payload->buff, (size_t)payload->index);
	return b;
}

static void pid_of(erlang_pid *p, unsigned num)
{
	memset(p, 0, sizeof *p);
	snprintf(p->node, sizeof p->node, "app@host");
	p->num = num;
	p->creation = 3;
}

static void test_packets(void)
{
	erlang_pid a, b;
	pid_of(&a, 11);
	pid_of(&b, 22);
	ei_x_buff ctl, msg;
	struct node_packet p;
	size_t len;
	char *pk;

	E(ei_x_new_with_version(&msg));
	tup(&msg, 2); atom(&msg, "rex"); atom(&msg, "ok");

	/* {SEND, '', To} then the message */
	E(ei_x_new_with_version(&ctl));
	tup(&ctl, 3); lng(&ctl, ERL_SEND); atom(&ctl, ""); E(ei_x_encode_pid(&ctl, &b));
	pk = packet(&ctl, &msg, &len);
	is_int(node_packet_open(pk, len, &p), NODE_PACKET_MESSAGE, "SEND: a message");
	ok(p.msg.msgtype == ERL_SEND && p.msg.to.num == 22, "SEND: to its pid");
	ok(len - p.payload_at == (size_t)msg.index && memcmp(pk + p.payload_at, msg.buff, (size_t)msg.index) == 0,
	   "SEND: the message follows, whole");
	/* every cut of the control message is refused within its bytes */
	int refused = 0;
	for (size_t cut = 0; cut <= (size_t)ctl.index; cut++) {
		char *c = malloc(cut + 1);
		memcpy(c, pk, cut + 1);
		refused += node_packet_open(c, cut + 1, &p) < 0;
		free(c);
	}
	is_int(refused, ctl.index, "SEND: each of its %d cuts refused", ctl.index);
	free(pk);
	ei_x_free(&ctl);

	/* {REG_SEND, From, '', Name}, and the traced {SEND_TT, '', To, Token} */
	E(ei_x_new_with_version(&ctl));
	tup(&ctl, 4); lng(&ctl, ERL_REG_SEND); E(ei_x_encode_pid(&ctl, &a)); atom(&ctl, ""); atom(&ctl, "fp_junk");
	pk = packet(&ctl, &msg, &len);
	is_int(node_packet_open(pk, len, &p), NODE_PACKET_MESSAGE, "REG_SEND: a message");
	ok(p.msg.msgtype == ERL_REG_SEND && p.msg.from.num == 11 && strcmp(p.msg.toname, "fp_junk") == 0,
	   "REG_SEND: from its pid, to its name");
	free(pk);
	ei_x_free(&ctl);
	E(ei_x_new_with_version(&ctl));
	tup(&ctl, 4); lng(&ctl, ERL_SEND_TT); atom(&ctl, ""); E(ei_x_encode_pid(&ctl, &b));
	tup(&ctl, 5); lng(&ctl, 0); lng(&ctl, 1); lng(&ctl, 2); E(ei_x_encode_pid(&ctl, &a)); lng(&ctl, 3);
	pk = packet(&ctl, &msg, &len);
	is_int(node_packet_open(pk, len, &p), NODE_PACKET_MESSAGE, "SEND_TT: a message");
	ok(p.msg.msgtype == ERL_SEND && len - p.payload_at == (size_t)msg.index, "SEND_TT: read as SEND, past its token");
	free(pk);
	ei_x_free(&ctl);

	/* {EXIT, From, To, Reason}: the reason, without a version byte */
	E(ei_x_new_with_version(&ctl));
	tup(&ctl, 4); lng(&ctl, ERL_EXIT); E(ei_x_encode_pid(&ctl, &a)); E(ei_x_encode_pid(&ctl, &b)); atom(&ctl, "killed");
	pk = packet(&ctl, NULL, &len);
	is_int(node_packet_open(pk, len, &p), NODE_PACKET_EXIT, "EXIT: an exit");
	int at = 0;
	char reason[16];
	ok(p.msg.from.num == 11 && ei_decode_atom(pk + p.payload_at, &at, reason) == 0 &&
	   strcmp(reason, "killed") == 0 && p.payload_at + (size_t)at == len, "EXIT: from its pid, its reason last");
	free(pk);
	ei_x_free(&ctl);

	/* {UNLINK_ID, Id, From, To}: Id kept for the answer; a link is a signal */
	E(ei_x_new_with_version(&ctl));
	tup(&ctl, 4); lng(&ctl, 35); lng(&ctl, 1234567); E(ei_x_encode_pid(&ctl, &a)); E(ei_x_encode_pid(&ctl, &b));
	pk = packet(&ctl, NULL, &len);
	is_int(node_packet_open(pk, len, &p), NODE_PACKET_UNLINK_ID, "UNLINK_ID: to be answered");
	long id = 0;
	at = 0;
	ok(p.id_len == 5 && ei_decode_long(pk + p.id_at, &at, &id) == 0 && id == 1234567 && p.msg.to.num == 22,
	   "UNLINK_ID: its Id, and whom it unlinks");
	free(pk);
	ei_x_free(&ctl);
	E(ei_x_new_with_version(&ctl));
	tup(&ctl, 3); lng(&ctl, ERL_LINK); E(ei_x_encode_pid(&ctl, &a)); E(ei_x_encode_pid(&ctl, &b));
	pk = packet(&ctl, NULL, &len);
	is_int(node_packet_open(pk, len, &p), NODE_PACKET_SIGNAL, "LINK: a signal, nothing of ours");
	pk[0] = 'q';
	is_int(node_packet_open(pk, len, &p), -1, "no pass-through byte: refused");
	free(pk);
	ei_x_free(&ctl);

	/* a SEND with a pid where its cookie goes, a type that is not a number */
	E(ei_x_new_with_version(&ctl));
	tup(&ctl, 3); lng(&ctl, ERL_SEND); E(ei_x_encode_pid(&ctl, &a)); E(ei_x_encode_pid(&ctl, &b));
	pk = packet(&ctl, &msg, &len);
	is_int(node_packet_open(pk, len, &p), -1, "SEND with a pid for its cookie: refused");
	free(pk);
	ei_x_free(&ctl);
	E(ei_x_new_with_version(&ctl));
	tup(&ctl, 3); atom(&ctl, "send"); atom(&ctl, ""); E(ei_x_encode_pid(&ctl, &b));
	pk = packet(&ctl, &msg, &len);
	is_int(node_packet_open(pk, len, &p), -1, "a type that is not a number: refused");
	free(pk);
	ei_x_free(&ctl);
	ei_x_free(&msg);
}

int main(void)
{
	subtest("rex: the release into its buffer", test_rex_word);
	subtest("rex: opening a reply", test_rex_open);
	subtest("rex: the sized readers", test_rex_readers);
	subtest("epmd's answers", test_epmd);
	subtest("distribution packets", test_packets);
	subtest("control bytes for the terminal", test_escape);
	subtest("the cookie file's rules", test_cookie);
	subtest("links to a cookie: their owners", test_cookie_links);
	return done_testing();
}
