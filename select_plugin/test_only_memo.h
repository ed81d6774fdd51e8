/*
 * test_only_memo.h - cons_tres's TEST_ONLY answers for jobs the plan holds
 * back, remembered until anything they depend on changes.
 *
 * Under select/omru SchedulerParameters=bf_min_prio_reserve keeps a held
 * job from blocking its partition, so every main scheduling cycle tests
 * every pending GPU job: RUN_NOW (refused at once) and then TEST_ONLY
 * ("could it ever run?"), which cons_tres answers from the node
 * configuration alone.  That answer only changes with the job's request,
 * the nodes offered or the node configuration, so it is kept per job
 * with all three and replayed, node selection included; only successes
 * are kept (a failure is rare and must stay cons_tres's own).  With 2,000
 * held jobs this took most of slurmctld's main cycle.
 */
#ifndef OMRU_TEST_ONLY_MEMO_H
#define OMRU_TEST_ONLY_MEMO_H

#include <stdbool.h>
#include <stdint.h>

#include "slurm_compat.h"

typedef struct test_only_memo test_only_memo_t;

extern test_only_memo_t *test_only_memo_create(void);
extern void test_only_memo_destroy(test_only_memo_t *m);

/*
 * test_only_memo_get - replay a remembered TEST_ONLY success.
 * IN/OUT node_bitmap: the nodes offered; on a hit, the nodes cons_tres
 *        selected from them then
 * IN node_update: a stamp of the nodes' configured resources (changes
 *        whenever they do)
 * RET true on a hit (answer SLURM_SUCCESS), false otherwise (untouched)
 */
extern bool test_only_memo_get(test_only_memo_t *m, job_record_t *job_ptr,
			       bitstr_t *node_bitmap, uint64_t node_update);

/*
 * test_only_memo_put - remember that TEST_ONLY succeeded for job_ptr's
 * request as it stands, on the nodes `offered`, selecting `chosen`.
 */
extern void test_only_memo_put(test_only_memo_t *m, job_record_t *job_ptr,
			       const bitstr_t *offered, const bitstr_t *chosen,
			       uint64_t node_update);

/*
 * test_only_memo_sweep - forget the jobs not asked about since the
 * previous sweep (started, ended, cancelled); called once per plan.
 */
extern void test_only_memo_sweep(test_only_memo_t *m);

/* For the plugin's stats line: jobs remembered, answers replayed and
 * asked of cons_tres since the start. */
extern void test_only_memo_stats(const test_only_memo_t *m, int *jobs,
				 long *hits, long *misses);

#endif
