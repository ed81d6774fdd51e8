/*
 * node_features.c - whether a node can serve a job's --constraint, so the
 * plan never counts on a node Slurm would not offer (doc/slurm-facts.md,
 * "Constraints").
 *
 * Slurm's expression: feature names joined by & (AND) and | (OR), grouped
 * with ( ), read left to right without precedence (as slurmctld combines
 * its node bitmaps); [a|b] (every node of the job the same one of them)
 * asks each node for a or b; a*N (N nodes with a) and anything this file
 * cannot read make the node eligible: cons_tres then decides, and a
 * refused planned start takes the node out of the job's plan
 * (start_refusals.c).  "a,b" is AND: slurmctld turns the commas into &.
 */
#include "plan_glue.h"

#include <ctype.h>
#include <string.h>

/* Whether the comma-separated `have` lists the feature [name, name+len). */
static bool has_feature(const char *have, const char *name, size_t len)
{
	const char *p = have;
	while (p && *p) {
		const char *end = strchr(p, ',');
		size_t n = end ? (size_t) (end - p) : strlen(p);
		if (n == len && !strncmp(p, name, len))
			return true;
		p = end ? end + 1 : NULL;
	}
	return false;
}

typedef struct {
	const char *s; /* next character */
	const char *have;
	bool unknown; /* something this reader leaves to cons_tres */
	int depth;
} expr_t;

static bool term(expr_t *e);

/* Terms joined by operators up to ')' or ']' or the end, left to right. */
static bool sequence(expr_t *e)
{
	bool acc = term(e);
	while (*e->s == '&' || *e->s == '|' || *e->s == ',') {
		char op = *e->s++;
		bool next = term(e);
		acc = (op == '|') ? (acc || next) : (acc && next);
	}
	return acc;
}

static bool term(expr_t *e)
{
	if (*e->s == '(' || *e->s == '[') {
		char close = *e->s == '(' ? ')' : ']';
		e->s++;
		if (++e->depth > 16) {
			e->unknown = true;
			return true;
		}
		bool v = sequence(e);
		e->depth--;
		if (*e->s != close) {
			e->unknown = true;
			return true;
		}
		e->s++;
		if (*e->s == '*') { /* a count on the group: not per node */
			e->unknown = true;
			while (isdigit((unsigned char) *++e->s))
				;
		}
		return v;
	}
	const char *start = e->s;
	while (*e->s && !strchr("&|,()[]*", *e->s))
		e->s++;
	size_t len = (size_t) (e->s - start);
	bool v = len > 0 && has_feature(e->have, start, len);
	if (len == 0)
		e->unknown = true;
	if (*e->s == '*') { /* a*N: some nodes need a, others not */
		e->unknown = true;
		while (isdigit((unsigned char) *++e->s))
			;
	}
	return v;
}

extern bool node_has_features(node_record_t *n, const char *features)
{
	if (!features || !*features)
		return true;
	expr_t e = { .s = features,
		     .have = n->features_act ? n->features_act : n->features };
	bool v = sequence(&e);
	if (*e.s) /* stopped early: a stray ')' or ']' */
		e.unknown = true;
	return e.unknown || v;
}
