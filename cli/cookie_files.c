/* cookie_files.c - see cookie_files.h. */
#include <stdio.h>
#include <string.h>
#include "cookie_files.h"
#include "optparse.h"
#include "../node/node.h"

static struct {
	char node[512];
	const char *file;
} files[FP_MAX_COOKIE_FILES];
static size_t nfiles;

void fp_cookie_files_reset(void)
{
	nfiles = 0;
}

int fp_cookie_file_option(const char *val, const char *spelled, const char **plain, char *detail,
			  size_t cap)
{
	char err[512];
	const char *eq = strchr(val, '=');
	size_t n = eq ? (size_t)(eq - val) : 0;
	/* NODE=FILE only when NODE is a node name: a path holding '=' (and no
	 * name@host before it) stays a path; ./a@b=c is the file 'a@b=c' */
	if (!eq || n == 0 || n >= sizeof files[0].node || !memchr(val, '@', n)) {
		*plain = val;
		return FP_OPT_OK;
	}
	char node[sizeof files[0].node];
	memcpy(node, val, n);
	node[n] = '\0';
	if (node_check_target(node, err, sizeof err) < 0) {
		*plain = val;
		return FP_OPT_OK;
	}
	if (!eq[1]) {
		snprintf(detail, cap, "%s '%s' names no file; give it as %s NODE=FILE", spelled, val, spelled);
		return FP_OPT_USAGE;
	}
	if (fp_cookie_file_for(node)) {
		snprintf(detail, cap, "%s gives the cookie of '%s' twice", spelled, node);
		return FP_OPT_USAGE;
	}
	if (nfiles == FP_MAX_COOKIE_FILES) {
		snprintf(detail, cap, "more than %d %s NODE=FILE given", FP_MAX_COOKIE_FILES, spelled);
		return FP_OPT_USAGE;
	}
	memcpy(files[nfiles].node, node, n + 1);
	files[nfiles++].file = eq + 1;
	return FP_OPT_OK;
}

const char *fp_cookie_file_for(const char *node)
{
	for (size_t k = 0; k < nfiles; k++)
		if (strcmp(files[k].node, node) == 0)
			return files[k].file;
	return NULL;
}

const char *fp_cookie_files_unknown(const char *const *nodes, size_t n)
{
	for (size_t k = 0; k < nfiles; k++) {
		size_t j = 0;
		while (j < n && strcmp(nodes[j], files[k].node) != 0)
			j++;
		if (j == n)
			return files[k].node;
	}
	return NULL;
}
