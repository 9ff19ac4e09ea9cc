/*
 * test_near.c - "did you mean" (common/near.c): the edit distance, and
 * which known words are near enough to offer.
 */
#include <string.h>

#include "tap.h"
#include "../../common/near.h"

static unsigned dist(const char *a, const char *b)
{
	return fp_near_distance(a, strlen(a), b, strlen(b));
}

static int near(const char *typed, const char *known)
{
	return fp_near(typed, strlen(typed), known, strlen(known));
}

int main(void)
{
	is_int(dist("duration", "duration"), 0, "the same word: 0");
	is_int(dist("durration", "duration"), 1, "a letter too many: 1");
	is_int(dist("duraton", "duration"), 1, "a letter missing: 1");
	is_int(dist("duratoin", "duration"), 1, "two neighbours swapped: 1");
	is_int(dist("dyration", "duration"), 1, "a letter changed: 1");
	is_int(dist("", "top"), 3, "from nothing: each letter");
	is_int(dist("kitten", "sitting"), 3, "kitten -> sitting: 3");
	char longer[FP_NEAR_MAX + 2];
	memset(longer, 'a', sizeof longer - 1);
	longer[sizeof longer - 1] = '\0';
	is_int(dist(longer, "a"), FP_NEAR_MAX + 1, "a word past the bound is far from all");
	is_int(near("durration", "duration"), 1, "one edit in 9 letters is near");
	is_int(near("dur", "duration"), 0, "a beginning of 3 letters is near");
	is_int(near("du", "duration"), -1, "... of 2 is not");
	is_int(near("hx", "hz"), 1, "one edit in 2 letters is near");
	is_int(near("hxx", "hz"), -1, "two in 3 are not");
	is_int(near("a", "b"), -1, "a word wholly changed is never near");
	is_int(near("frobnicate", "format"), -1, "far words are not near");
	is_int(near("app_node", "app_nodes"), 0, "a node name with a letter missing at its end");
	is_int(near("shpo", "shop"), 1, "swapped letters in a short name");
	return done_testing();
}
