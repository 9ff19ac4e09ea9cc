/*
 * lock.c - one flameprof per node, and one connection per node name.
 *
 * On the node: the name flameprof_agent is taken before any code is
 * touched, by a lock process that runs no code of ours: spawned through
 * rex as erlang:hibernate(erlang, exit, [normal]), it sleeps in hibernation
 * (a few hundred bytes) and ends quietly at the first message it gets.
 * erlang:register/2 is atomic: of two runs started together exactly one
 * gets the name, and the other has loaded, deleted or purged nothing. An
 * erlang:send_after/3 timer (a BIF: no timer server is started on the node)
 * wakes and so ends the lock if we die before an agent adopts it; the agent
 * cancels it, links to the lock and kills it when it ends.
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
#include <unistd.h>
#include "internal.h"

/* Longer than loading can take (LOAD_TIMEOUT_MS in load.c, twice over). */
#define LOCK_TTL_MS 150000

static int busy(sampler_t *s)
{
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

int lock_take(sampler_t *s)
{
	struct args a;
	ei_x_buff reply;
	char atom[MAXATOMLEN_UTF8];
	int at, r, end;

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
	args_begin(&a, 2);
	arg_atom(&a, "flameprof_agent");
	a.ok = a.ok && ei_x_encode_pid(&a.x, &s->lock) == 0;
	r = rex_call_args(s, "erlang", "register", &a, &reply, &at, s->opts.connect_timeout_ms);
	if (r == 0 && (ei_decode_atom(reply.buff, &at, atom) < 0 || strcmp(atom, "true") != 0)) {
		/* {badrpc, {'EXIT', {badarg, _}}}: the name is taken */
		lock_release(s);
		r = busy(s);
	}
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
