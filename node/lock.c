/*
 * lock.c - one flameprof per node, and one connection per node name.
 *
 * On the node: a name given by the caller (one per job: the sampling
 * agent's, the tracing session's of calls and requests) is taken before
 * any code is touched, by a lock process that runs no code of ours: spawned through
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

/* erlang:nodes(connected) longer than this is not believed (the node is
 * then taken as connected to the lock's owner, and nothing taken over). */
#define MAX_NODES 100000

static int busy(node_t *s)
{
	return node_errf(s, NODE_ERR_BUSY, "'%s' %s", s->node, s->lock_busy);
}

/* /tmp/flameprof-<uid>, ours alone: the same for a run from cron and one
 * from a terminal (XDG_RUNTIME_DIR is not, so it is not used). Anyone can
 * create that name in /tmp first; a directory that is not ours alone
 * (another owner, a link, a file, open to others) would let another user
 * break or fake our lock, so it is an error, never silently skipped.
 * @return 0, or NODE_ERR_LOCAL with s->err set. */
static int lock_dir(node_t *s, char *out, size_t cap)
{
	struct stat st;
	char why[64];
	snprintf(out, cap, "/tmp/flameprof-%u", (unsigned)geteuid());
	if (mkdir(out, 0700) < 0 && errno != EEXIST)
		return node_errf(s, NODE_ERR_LOCAL, "cannot create the lock directory '%s': %s; check /tmp",
			    out, strerror(errno));
	if (lstat(out, &st) < 0)
		return node_errf(s, NODE_ERR_LOCAL, "cannot check the lock directory '%s': %s", out, strerror(errno));
	if (S_ISLNK(st.st_mode))
		snprintf(why, sizeof why, "it is a symbolic link");
	else if (!S_ISDIR(st.st_mode))
		snprintf(why, sizeof why, "it is not a directory");
	else if (st.st_uid != geteuid())
		snprintf(why, sizeof why, "it belongs to uid %u", (unsigned)st.st_uid);
	else if (st.st_mode & 077)
		snprintf(why, sizeof why, "its mode %04o lets others in", (unsigned)(st.st_mode & 07777));
	else
		return 0;
	return node_errf(s, NODE_ERR_LOCAL,
		    "the lock directory '%s' is not this user's alone (%s), so two runs cannot be kept apart; remove it (flameprof makes it again) or find out who made it",
		    out, why);
}

int node_lock_local(node_t *s, const char *alive)
{
	char dir[64];
	int r = lock_dir(s, dir, sizeof dir);
	if (r < 0)
		return r;
	snprintf(s->local_lock_path, sizeof s->local_lock_path, "%s/%s-%s.lock", dir, alive, s->node);
	/* The file is removed when the run ends (lock_local_free), so a run
	 * may lock a file that was just removed: it checks that the file it
	 * holds is still the one of that name, or tries again. */
	for (int tries = 0; tries < 5; tries++) {
		struct stat held, named;
		int fd = open(s->local_lock_path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0)
			return node_errf(s, NODE_ERR_LOCAL, "cannot create the lock file '%s': %s; check /tmp",
				    s->local_lock_path, strerror(errno));
		if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
			int e = errno;
			close(fd);
			if (e != EWOULDBLOCK)
				return node_errf(s, NODE_ERR_LOCAL, "cannot lock '%s': %s", s->local_lock_path, strerror(e));
			/* The name is a job's (connect.c: flameprof_<user> for the
			 * capture and top, flameprof_<role>_<user> for calls and for
			 * requests), so the run holding it is doing this job on this
			 * node, and holds (or is about to take) the node's lock of that
			 * job: another --node-name would only be refused there. */
			if (s->opts.role)
				return node_errf(s, NODE_ERR_BUSY,
					    "another flameprof of yours is connected to '%s' under our node name '%s', tracing it (flameprof %s); wait for it to finish: one at a time per node",
					    s->node, alive, s->opts.role);
			return node_errf(s, NODE_ERR_BUSY,
				    "another flameprof of yours is connected to '%s' under our node name '%s', sampling it (a capture or flameprof top); wait for it to finish: one at a time per node",
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

void node_lock_local_free(node_t *s)
{
	if (s->local_lock_fd < 0)
		return;
	unlink(s->local_lock_path);
	close(s->local_lock_fd);
	s->local_lock_fd = -1;
}

/* Whether node is among the target's connected nodes. @return 1, 0, or <0. */
static int connected(node_t *s, const char *node)
{
	struct node_args a;
	struct node_rex_reply rr;
	ei_x_buff reply;
	int r, found = 0;
	if (ei_x_new(&reply) < 0)
		return node_errf(s, NODE_ERR_NOMEM, "out of memory");
	node_args_begin(&a, 1);
	node_arg_atom(&a, "connected");
	r = node_rex_call_args(s, "erlang", "nodes", &a, &reply, &rr, s->opts.connect_timeout_ms);
	if (r == 0 && node_rex_reply_has_atom(&rr, node, MAX_NODES, &found) < 0)
		found = 1; /* unreadable: count it as there, take nothing over */
	ei_x_free(&reply);
	return r < 0 ? r : found;
}

/* Whether the name is held by a lock whose run is gone (see the top of the
 * file); *holder is that lock. @return 1, 0, or <0 (s->err set). */
static int stale_lock(node_t *s, erlang_pid *holder)
{
	struct node_args a;
	struct node_rex_reply rr;
	ei_x_buff reply;
	erlang_pid owner;
	int r, stale = 0;
	node_args_begin(&a, 1);
	node_arg_atom(&a, s->lock_name);
	if ((r = node_rex_call_pid(s, "erlang", "whereis", &a, holder)) <= 0)
		return r; /* gone meanwhile, or not a pid: not ours to judge */
	if (ei_x_new(&reply) < 0)
		return node_errf(s, NODE_ERR_NOMEM, "out of memory");
	node_args_begin(&a, 2);
	a.ok = a.ok && ei_x_encode_pid(&a.x, holder) == 0 && ei_x_encode_list_header(&a.x, 3) == 0;
	node_arg_atom(&a, "initial_call");
	node_arg_atom(&a, "links");
	node_arg_atom(&a, "group_leader");
	a.ok = a.ok && ei_x_encode_empty_list(&a.x) == 0;
	r = node_rex_call_args(s, "erlang", "process_info", &a, &reply, &rr, s->opts.connect_timeout_ms);
	if (r < 0 || !node_rex_reply_bare_lock(&rr, &owner) || strcmp(owner.node, s->node) == 0)
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
static int register_lock(node_t *s)
{
	struct node_args a;
	int r, yes;
	node_args_begin(&a, 2);
	node_arg_atom(&a, s->lock_name);
	a.ok = a.ok && ei_x_encode_pid(&a.x, &s->lock) == 0;
	/* true, or {badrpc, {'EXIT', {badarg, _}}} when the name is taken */
	r = node_rex_call_is(s, "erlang", "register", &a, "true", &yes);
	return r < 0 ? r : yes;
}

/* erlang:F(Pid, Arg) for its effect; @return 0 or <0. */
static int call_on_pid(node_t *s, const char *fun, const erlang_pid *first, const erlang_pid *pid_arg, const char *atom_arg)
{
	struct node_args a;
	node_args_begin(&a, 2);
	a.ok = a.ok && ei_x_encode_pid(&a.x, first) == 0;
	if (pid_arg)
		a.ok = a.ok && ei_x_encode_pid(&a.x, pid_arg) == 0;
	else
		node_arg_atom(&a, atom_arg);
	return node_rex_call_do(s, "erlang", fun, &a);
}

/* Whether the name is still held by pid, or free: 1; held by another: 0; <0 error. */
static int held_by_or_free(node_t *s, const erlang_pid *pid)
{
	struct node_args a;
	erlang_pid now;
	node_args_begin(&a, 1);
	node_arg_atom(&a, s->lock_name);
	int r = node_rex_call_pid(s, "erlang", "whereis", &a, &now);
	if (r < 0)
		return r;
	return r == 0 || /* undefined: free */
	       (strcmp(now.node, pid->node) == 0 && now.num == pid->num && now.serial == pid->serial &&
		now.creation == pid->creation);
}

/* Takes the name once the stale holder we killed has let it go: exit/2 is
 * a signal, handled at once on OTP 25 but not always on 26 and later, so
 * registering right after it can find the name still taken. Of two runs
 * doing this, one wins. @return 1 registered, 0 taken by another, <0. */
static int retake(node_t *s, const erlang_pid *holder)
{
	long long until = fp_mono_ms() + s->opts.connect_timeout_ms;
	struct timespec pause = { 0, 20 * 1000 * 1000 };
	for (;;) {
		int r = register_lock(s);
		if (r != 0 || (r = held_by_or_free(s, holder)) <= 0)
			return r;
		if (fp_mono_ms() >= until)
			return 0;
		nanosleep(&pause, NULL);
	}
}

int node_lock_take(node_t *s, const char *name, const char *busy_text)
{
	struct node_args a;
	struct node_rex_reply rr;
	ei_x_buff reply;
	int r, start, end;

	s->lock_name = name;
	s->lock_busy = busy_text;

	node_args_begin(&a, 3);
	node_arg_atom(&a, "erlang");
	node_arg_atom(&a, "hibernate");
	a.ok = a.ok && ei_x_encode_list_header(&a.x, 3) == 0;
	node_arg_atom(&a, "erlang");
	node_arg_atom(&a, "exit");
	a.ok = a.ok && ei_x_encode_list_header(&a.x, 1) == 0;
	node_arg_atom(&a, "normal");
	a.ok = a.ok && ei_x_encode_empty_list(&a.x) == 0 && ei_x_encode_empty_list(&a.x) == 0;
	if ((r = node_rex_call_pid(s, "erlang", "spawn", &a, &s->lock)) <= 0)
		return r < 0 ? r : node_errf(s, NODE_ERR_AGENT, "cannot take the flameprof lock on '%s' (erlang:spawn failed)", s->node);
	s->have_lock = 1;

	if (ei_x_new(&reply) < 0)
		return node_errf(s, NODE_ERR_NOMEM, "out of memory");
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
		node_lock_release(s);
		r = busy(s);
	}
	/* the owner's mark: our pid as the lock's group leader */
	if (r == 1 && (r = call_on_pid(s, "group_leader", ei_self(&s->ec), &s->lock, NULL)) < 0 &&
	    r != NODE_ERR_LOST)
		node_lock_release(s);
	if (r < 0)
		goto out;

	/* the timer's reference: kept, encoded, for the agent to cancel */
	node_args_begin(&a, 3);
	a.ok = a.ok && ei_x_encode_ulong(&a.x, NODE_LOCK_TTL_MS) == 0 && ei_x_encode_pid(&a.x, &s->lock) == 0;
	node_arg_atom(&a, "fp_lock_expired");
	r = node_rex_call_args(s, "erlang", "send_after", &a, &reply, &rr, s->opts.connect_timeout_ms);
	if (r == 0 && node_rex_reply_ref(&rr, &start, &end) < 0)
		r = node_errf(s, NODE_ERR_AGENT, "cannot take the flameprof lock on '%s' (erlang:send_after failed)", s->node);
	if (r == 0) {
		s->lock_timer.index = 0;
		if (ei_x_append_buf(&s->lock_timer, reply.buff + start, end - start) < 0)
			r = node_errf(s, NODE_ERR_NOMEM, "out of memory");
	}
	if (r < 0 && r != NODE_ERR_LOST)
		node_lock_release(s);
out:
	ei_x_free(&reply);
	return r;
}

void node_lock_release(node_t *s)
{
	struct node_args a;
	if (!s->have_lock)
		return;
	node_args_begin(&a, 2);
	a.ok = a.ok && ei_x_encode_pid(&a.x, &s->lock) == 0;
	node_arg_atom(&a, "kill");
	if (node_rex_call_do(s, "erlang", "exit", &a) == 0)
		s->have_lock = 0;
}

void node_arg_lock(struct node_args *a, node_t *s)
{
	node_arg_atom(a, "lock");
	a->ok = a->ok && ei_x_encode_pid(&a->x, &s->lock) == 0;
	node_arg_atom(a, "lock_timer");
	node_arg_raw(a, s->lock_timer.buff, s->lock_timer.index);
}

void node_lock_adopted(node_t *s)
{
	s->have_lock = 0;
}
