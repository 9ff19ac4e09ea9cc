/*
 * lock.c - one flameprof per node, and one connection per node name.
 *
 * On the node: a name (flameprof_agent for the sampling agent,
 * flameprof_tracer for the tracing session of calls and requests) is taken
 * before any code is touched, by a lock process that runs no code of ours: spawned through
 * rex as erlang:hibernate(erlang, exit, [normal]), it sleeps in hibernation
 * (a few hundred bytes) and ends quietly at the first message it gets.
 * erlang:register/2 is atomic: of two runs started together exactly one
 * gets the name, and the other has loaded, deleted or purged nothing. An
 * erlang:send_after/3 timer (a BIF: no timer server is started on the node)
 * wakes and so ends the lock if we die before an agent adopts it; the agent
 * (or the tracer's guardian) cancels it, links to the lock and kills it
 * when it ends.
 *
 * A run killed between taking the lock and starting its agent would block
 * the node for the timer's 150 s. So the lock's group leader is set to our
 * C-node's pid: it names the run that owns it. A run that finds the name
 * taken by a lock that is still bare (initial call erlang:hibernate/3, no
 * link: no agent adopted it) and whose owner is gone (not connected, or our
 * own node name, which this host's lock file says no live run of ours
 * holds) kills that lock and takes the name. A lock an agent adopted is
 * never taken over: that agent restores the node and ends it.
 *
 * On this host: our node name is the same every run (connect.c), and the
 * target refuses a second connection under a name that is connected, with
 * the same handshake failure as a wrong cookie. A lock file per node name
 * and target (flock, so a killed run holds nothing) tells the two apart
 * before we connect.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "internal.h"

/* Longer than loading can take (LOAD_TIMEOUT_MS in load.c, twice over). */
#define LOCK_TTL_MS 150000

static int busy(sampler_t *s)
{
	if (strcmp(s->lock_name, AGENT_LOCK) != 0)
		return serr(s, SAMPLER_ERR_BUSY,
			    "'%s' already has a flameprof tracing session (flameprof calls or requests); wait for it to finish, one runs at a time per node",
			    s->node);
	return serr(s, SAMPLER_ERR_BUSY,
		    "'%s' is already being profiled by another flameprof; wait for it to finish, flameprof runs one at a time per node",
		    s->node);
}

/* /tmp/flameprof-<uid>, ours alone: the same for a run from cron and one
 * from a terminal (XDG_RUNTIME_DIR is not, so it is not used). @return 0,
 * or -1 when it cannot be made or is not a private directory of ours. */
static int lock_dir(char *out, size_t cap)
{
	struct stat st;
	snprintf(out, cap, "/tmp/flameprof-%u", (unsigned)geteuid());
	if (mkdir(out, 0700) < 0 && errno != EEXIST)
		return -1;
	if (lstat(out, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077))
		return -1;
	return 0;
}

int lock_local(sampler_t *s, const char *alive)
{
	char dir[64];
	if (lock_dir(dir, sizeof dir) < 0)
		return 0; /* no lock file here: the target's refusal still protects it */
	snprintf(s->local_lock_path, sizeof s->local_lock_path, "%s/%s-%s.lock", dir, alive, s->node);
	/* The file is removed when the run ends (lock_local_free), so a run
	 * may lock a file that was just removed: it checks that the file it
	 * holds is still the one of that name, or tries again. */
	for (int tries = 0; tries < 5; tries++) {
		struct stat held, named;
		int fd = open(s->local_lock_path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0)
			return 0;
		if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
			int e = errno;
			close(fd);
			if (e != EWOULDBLOCK)
				return 0;
			return serr(s, SAMPLER_ERR_BUSY,
				    "another flameprof of yours is connected to '%s' under our node name '%s'; wait for it to finish, or give this one another name with --node-name NAME",
				    s->node, alive);
		}
		if (fstat(fd, &held) == 0 && stat(s->local_lock_path, &named) == 0 &&
		    held.st_ino == named.st_ino && held.st_dev == named.st_dev) {
			s->local_lock_fd = fd;
			return 0;
		}
		close(fd);
	}
	return 0;
}

void lock_local_free(sampler_t *s)
{
	if (s->local_lock_fd < 0)
		return;
	unlink(s->local_lock_path);
	close(s->local_lock_fd);
	s->local_lock_fd = -1;
}

/* M:F(Args) where the caller has put the arguments in a; *pid from the reply. */
static int call_for_pid(sampler_t *s, const char *mod, const char *fun, struct args *a, erlang_pid *pid)
{
	ei_x_buff reply;
	int at, r;
	if (ei_x_new(&reply) < 0) {
		ei_x_free(&a->x);
		return serr(s, SAMPLER_ERR_NOMEM, "out of memory");
	}
	r = rex_call_args(s, mod, fun, a, &reply, &at, s->opts.connect_timeout_ms);
	if (r == 0 && ei_decode_pid(reply.buff, &at, pid) < 0)
		r = serr(s, SAMPLER_ERR_AGENT, "cannot take the flameprof lock on '%s' (%s:%s failed)", s->node, mod, fun);
	ei_x_free(&reply);
	return r;
}

/* Decodes {Key, _} at *at and says whether Key is key; leaves *at on the value. */
static int pair_is(const char *buf, int *at, const char *key)
{
	char atom[MAXATOMLEN_UTF8];
	int n;
	return ei_decode_tuple_header(buf, at, &n) == 0 && n == 2 &&
	       ei_decode_atom(buf, at, atom) == 0 && strcmp(atom, key) == 0;
}

/* Reads the holder's process_info reply: a bare lock (erlang:hibernate/3,
 * no link) with a remote group leader, put in *owner. @return 1 or 0. */
static int bare_lock(const char *buf, int at, erlang_pid *owner)
{
	char m[MAXATOMLEN_UTF8], f[MAXATOMLEN_UTF8];
	long arity;
	int n;
	if (ei_decode_list_header(buf, &at, &n) < 0 || n != 3)
		return 0;
	if (!pair_is(buf, &at, "initial_call") || ei_decode_tuple_header(buf, &at, &n) < 0 || n != 3 ||
	    ei_decode_atom(buf, &at, m) < 0 || ei_decode_atom(buf, &at, f) < 0 ||
	    ei_decode_long(buf, &at, &arity) < 0 ||
	    strcmp(m, "erlang") != 0 || strcmp(f, "hibernate") != 0 || arity != 3)
		return 0;
	if (!pair_is(buf, &at, "links") || ei_decode_list_header(buf, &at, &n) < 0 || n != 0)
		return 0;
	return pair_is(buf, &at, "group_leader") && ei_decode_pid(buf, &at, owner) == 0;
}

/* Whether node is among the target's connected nodes. @return 1, 0, or <0. */
static int connected(sampler_t *s, const char *node)
{
	struct args a;
	ei_x_buff reply;
	char atom[MAXATOMLEN_UTF8];
	int at, n, r, found = 0;
	if (ei_x_new(&reply) < 0)
		return serr(s, SAMPLER_ERR_NOMEM, "out of memory");
	args_begin(&a, 1);
	arg_atom(&a, "connected");
	r = rex_call_args(s, "erlang", "nodes", &a, &reply, &at, s->opts.connect_timeout_ms);
	if (r == 0 && ei_decode_list_header(reply.buff, &at, &n) == 0) {
		for (int i = 0; i < n && !found; i++)
			if (ei_decode_atom(reply.buff, &at, atom) == 0)
				found = strcmp(atom, node) == 0;
			else
				found = 1; /* unreadable: count it as there, take nothing over */
	} else if (r == 0)
		found = 1;
	ei_x_free(&reply);
	return r < 0 ? r : found;
}

/* Whether the name is held by a lock whose run is gone (see the top of the
 * file); *holder is that lock. @return 1, 0, or <0 (s->err set). */
static int stale_lock(sampler_t *s, erlang_pid *holder)
{
	struct args a;
	ei_x_buff reply;
	erlang_pid owner;
	int at, r, stale = 0;
	if (ei_x_new(&reply) < 0)
		return serr(s, SAMPLER_ERR_NOMEM, "out of memory");
	args_begin(&a, 1);
	arg_atom(&a, s->lock_name);
	r = rex_call_args(s, "erlang", "whereis", &a, &reply, &at, s->opts.connect_timeout_ms);
	if (r < 0 || ei_decode_pid(reply.buff, &at, holder) < 0)
		goto out; /* gone meanwhile, or not a pid: not ours to judge */
	args_begin(&a, 2);
	a.ok = a.ok && ei_x_encode_pid(&a.x, holder) == 0 && ei_x_encode_list_header(&a.x, 3) == 0;
	arg_atom(&a, "initial_call");
	arg_atom(&a, "links");
	arg_atom(&a, "group_leader");
	a.ok = a.ok && ei_x_encode_empty_list(&a.x) == 0;
	r = rex_call_args(s, "erlang", "process_info", &a, &reply, &at, s->opts.connect_timeout_ms);
	if (r < 0 || !bare_lock(reply.buff, at, &owner) || strcmp(owner.node, s->node) == 0)
		goto out;
	if (strcmp(owner.node, ei_thisnodename(&s->ec)) == 0)
		stale = 1; /* a run of ours under this name: we hold its lock file, so it is dead */
	else if ((r = connected(s, owner.node)) >= 0)
		stale = !r;
out:
	ei_x_free(&reply);
	return r < 0 ? r : stale;
}

/* Registers our lock under the name. @return 1 registered, 0 taken, <0 error. */
static int register_lock(sampler_t *s)
{
	struct args a;
	ei_x_buff reply;
	char atom[MAXATOMLEN_UTF8];
	int at, r;
	if (ei_x_new(&reply) < 0)
		return serr(s, SAMPLER_ERR_NOMEM, "out of memory");
	args_begin(&a, 2);
	arg_atom(&a, s->lock_name);
	a.ok = a.ok && ei_x_encode_pid(&a.x, &s->lock) == 0;
	r = rex_call_args(s, "erlang", "register", &a, &reply, &at, s->opts.connect_timeout_ms);
	/* true, or {badrpc, {'EXIT', {badarg, _}}} when the name is taken */
	if (r == 0)
		r = ei_decode_atom(reply.buff, &at, atom) == 0 && strcmp(atom, "true") == 0;
	ei_x_free(&reply);
	return r;
}

/* erlang:F(Pid, Arg) for its effect; @return 0 or <0. */
static int call_on_pid(sampler_t *s, const char *fun, const erlang_pid *first, const erlang_pid *pid_arg, const char *atom_arg)
{
	struct args a;
	ei_x_buff reply;
	int at, r;
	if (ei_x_new(&reply) < 0)
		return serr(s, SAMPLER_ERR_NOMEM, "out of memory");
	args_begin(&a, 2);
	a.ok = a.ok && ei_x_encode_pid(&a.x, first) == 0;
	if (pid_arg)
		a.ok = a.ok && ei_x_encode_pid(&a.x, pid_arg) == 0;
	else
		arg_atom(&a, atom_arg);
	r = rex_call_args(s, "erlang", fun, &a, &reply, &at, s->opts.connect_timeout_ms);
	ei_x_free(&reply);
	return r;
}

/* Whether the name is still held by pid, or free: 1; held by another: 0; <0 error. */
static int held_by_or_free(sampler_t *s, const erlang_pid *pid)
{
	struct args a;
	ei_x_buff reply;
	erlang_pid now;
	int at, r;
	if (ei_x_new(&reply) < 0)
		return serr(s, SAMPLER_ERR_NOMEM, "out of memory");
	args_begin(&a, 1);
	arg_atom(&a, s->lock_name);
	r = rex_call_args(s, "erlang", "whereis", &a, &reply, &at, s->opts.connect_timeout_ms);
	if (r == 0)
		r = ei_decode_pid(reply.buff, &at, &now) < 0 || /* undefined: free */
		    (strcmp(now.node, pid->node) == 0 && now.num == pid->num && now.serial == pid->serial &&
		     now.creation == pid->creation);
	ei_x_free(&reply);
	return r;
}

/* Takes the name once the stale holder we killed has let it go: exit/2 is
 * a signal, handled at once on OTP 25 but not always on 26 and later, so
 * registering right after it can find the name still taken. Of two runs
 * doing this, one wins. @return 1 registered, 0 taken by another, <0. */
static int retake(sampler_t *s, const erlang_pid *holder)
{
	long long until = mono_ms() + s->opts.connect_timeout_ms;
	struct timespec pause = { 0, 20 * 1000 * 1000 };
	for (;;) {
		int r = register_lock(s);
		if (r != 0 || (r = held_by_or_free(s, holder)) <= 0)
			return r;
		if (mono_ms() >= until)
			return 0;
		nanosleep(&pause, NULL);
	}
}

int lock_take(sampler_t *s, const char *name)
{
	struct args a;
	ei_x_buff reply;
	int at, r, end;

	s->lock_name = name;

	args_begin(&a, 3);
	arg_atom(&a, "erlang");
	arg_atom(&a, "hibernate");
	a.ok = a.ok && ei_x_encode_list_header(&a.x, 3) == 0;
	arg_atom(&a, "erlang");
	arg_atom(&a, "exit");
	a.ok = a.ok && ei_x_encode_list_header(&a.x, 1) == 0;
	arg_atom(&a, "normal");
	a.ok = a.ok && ei_x_encode_empty_list(&a.x) == 0 && ei_x_encode_empty_list(&a.x) == 0;
	if ((r = call_for_pid(s, "erlang", "spawn", &a, &s->lock)) < 0)
		return r;
	s->have_lock = 1;

	if (ei_x_new(&reply) < 0)
		return serr(s, SAMPLER_ERR_NOMEM, "out of memory");
	r = register_lock(s);
	if (r == 0) {
		erlang_pid holder;
		int stale = stale_lock(s, &holder);
		if (stale == 1 && (r = call_on_pid(s, "exit", &holder, NULL, "kill")) == 0)
			r = retake(s, &holder);
		else if (stale < 0)
			r = stale;
	}
	if (r == 0) {
		lock_release(s);
		r = busy(s);
	}
	/* the owner's mark: our pid as the lock's group leader */
	if (r == 1 && (r = call_on_pid(s, "group_leader", ei_self(&s->ec), &s->lock, NULL)) < 0 &&
	    r != SAMPLER_ERR_LOST)
		lock_release(s);
	if (r < 0)
		goto out;

	/* the timer's reference: kept, encoded, for the agent to cancel */
	args_begin(&a, 3);
	a.ok = a.ok && ei_x_encode_ulong(&a.x, LOCK_TTL_MS) == 0 && ei_x_encode_pid(&a.x, &s->lock) == 0;
	arg_atom(&a, "fp_lock_expired");
	r = rex_call_args(s, "erlang", "send_after", &a, &reply, &at, s->opts.connect_timeout_ms);
	erlang_ref ref;
	if (r == 0 && (end = at, ei_decode_ref(reply.buff, &end, &ref) < 0))
		r = serr(s, SAMPLER_ERR_AGENT, "cannot take the flameprof lock on '%s' (erlang:send_after failed)", s->node);
	if (r == 0) {
		s->lock_timer.index = 0;
		if (ei_x_append_buf(&s->lock_timer, reply.buff + at, end - at) < 0)
			r = serr(s, SAMPLER_ERR_NOMEM, "out of memory");
	}
	if (r < 0 && r != SAMPLER_ERR_LOST)
		lock_release(s);
out:
	ei_x_free(&reply);
	return r;
}

void lock_release(sampler_t *s)
{
	struct args a;
	ei_x_buff reply;
	int at;
	if (!s->have_lock || ei_x_new(&reply) < 0)
		return;
	args_begin(&a, 2);
	a.ok = a.ok && ei_x_encode_pid(&a.x, &s->lock) == 0;
	arg_atom(&a, "kill");
	if (rex_call_args(s, "erlang", "exit", &a, &reply, &at, s->opts.connect_timeout_ms) == 0)
		s->have_lock = 0;
	ei_x_free(&reply);
}
