/*
 * node_features.c - whether a node has the features a job's --constraint
 * asks.
 */
#include "plan_glue.h"

#include <string.h>

/* Every token of an AND-only constraint ("a&b", "a,b" is not AND). */
extern bool node_has_features(node_record_t *n, const char *features)
{
	char *copy, *tok, *save = NULL;
	bool ok = true;
	const char *have = n->features_act ? n->features_act : n->features;

	if (!features || !*features)
		return true;
	if (strpbrk(features, "|[]*(),"))
		return true; /* not a plain AND: cons_tres filters alone */
	copy = xstrdup(features);
	for (tok = strtok_r(copy, "&", &save); tok && ok;
	     tok = strtok_r(NULL, "&", &save)) {
		char *hcopy = xstrdup(have), *h, *hs = NULL;
		bool found = false;
		for (h = strtok_r(hcopy, ",", &hs); h && !found;
		     h = strtok_r(NULL, ",", &hs))
			found = !xstrcmp(h, tok);
		xfree(hcopy);
		ok = found;
	}
	xfree(copy);
	return ok;
}
