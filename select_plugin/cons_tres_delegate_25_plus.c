/*
 * cons_tres_delegate_25_plus.c - the select interface of Slurm 25.05 and
 * later for select/omru_cons_tres: 12 select_p_* entry points (13 from
 * 26.05: job_mem_reduce), each passing the call to select/cons_tres loaded
 * as a plugin context of its own, with the plan glue (plan_glue.c) hooked
 * in where the plan decides: job_test, job_begin, job_fini, reconfigure.
 *
 * The one file that knows this family's interface.  25.05 cut the
 * interface to what slurmctld calls (no jobinfo/nodeinfo packing, no step
 * or state save/restore hooks: select_omru.c reads and writes the plan's
 * state at start and stop instead) and loads only the configured select
 * plugin, so this one must load cons_tres itself (as every release here
 * does) and carry cons_tres's plugin_id (slurm_compat.h).  The ops struct
 * is private to slurmctld's select.c; its layout is written out here from
 * the 25.05.8 and 26.05.3 sources.  Compiled against 26.05.3
 * (doc/slurm-releases.md); not run.
 */
#include "config.h"

/* Call libslurm's exported slurm_* names, as Slurm's own plugins do. */
#include "src/common/slurm_xlator.h"

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#include "omru_select.h"

#if !OMRU_SLURM_AT_LEAST(25, 5)
#error "cons_tres_delegate_25_plus.c implements Slurm 25.05+'s select API"
#endif

#include "src/common/plugin.h"
#include "src/common/log.h"

/* job_test's arguments after the preemption lists (omru_select.h). */
struct omru_job_test_tail {
	resv_exc_t *resv_exc_ptr;
	will_run_data_t *will_run_ptr;
};

#define HAS_JOB_MEM_REDUCE OMRU_SLURM_AT_LEAST(26, 5)

/* slurmctld's slurm_select_ops_t of this family: one member per symbol,
 * in the order of delegate_syms. */
typedef struct {
	uint32_t *plugin_id;
	int (*node_init)(void);
	int (*job_test)(job_record_t *job_ptr, bitstr_t *bitmap,
			uint32_t min_nodes, uint32_t max_nodes,
			uint32_t req_nodes, uint16_t mode,
			list_t *preemptee_candidates,
			list_t **preemptee_job_list, resv_exc_t *resv_exc_ptr,
			will_run_data_t *will_run_ptr);
	int (*job_begin)(job_record_t *job_ptr);
	int (*job_ready)(job_record_t *job_ptr);
	int (*job_expand)(job_record_t *from_job_ptr, job_record_t *to_job_ptr);
	int (*job_resized)(job_record_t *job_ptr, node_record_t *node_ptr);
#if HAS_JOB_MEM_REDUCE
	void (*job_mem_reduce)(job_record_t *job_ptr);
#endif
	int (*job_fini)(job_record_t *job_ptr);
	int (*job_suspend)(job_record_t *job_ptr, bool indf_susp);
	int (*job_resume)(job_record_t *job_ptr, bool indf_susp);
	int (*nodeinfo_set_all)(void);
	int (*nodeinfo_set)(job_record_t *job_ptr);
	int (*reconfigure)(void);
} delegate_ops_t;

/* Must list the symbols in the order of delegate_ops_t's members. */
static const char *delegate_syms[] = {
	"plugin_id",
	"select_p_node_init",
	"select_p_job_test",
	"select_p_job_begin",
	"select_p_job_ready",
	"select_p_job_expand",
	"select_p_job_resized",
#if HAS_JOB_MEM_REDUCE
	"select_p_job_mem_reduce",
#endif
	"select_p_job_fini",
	"select_p_job_suspend",
	"select_p_job_resume",
	"select_p_select_nodeinfo_set_all",
	"select_p_select_nodeinfo_set",
	"select_p_reconfigure",
};

/* One pointer per member, so the table and the struct cannot drift apart. */
_Static_assert(sizeof(delegate_syms) / sizeof(delegate_syms[0]) ==
		       sizeof(delegate_ops_t) / sizeof(void *),
	       "delegate_syms must name every member of delegate_ops_t");

static delegate_ops_t ops;
static plugin_context_t *context = NULL;

#include "cons_tres_delegate_common.h"

extern int select_p_job_test(job_record_t *job_ptr, bitstr_t *node_bitmap,
			     uint32_t min_nodes, uint32_t max_nodes,
			     uint32_t req_nodes, uint16_t mode,
			     list_t *preemptee_candidates,
			     list_t **preemptee_job_list,
			     resv_exc_t *resv_exc_ptr,
			     will_run_data_t *will_run_ptr)
{
	struct omru_job_test_tail tail = { resv_exc_ptr, will_run_ptr };
	return omru_job_test(job_ptr, node_bitmap, min_nodes, max_nodes,
			     req_nodes, mode, preemptee_candidates,
			     preemptee_job_list, &tail);
}

extern int omru_delegate_job_test(job_record_t *job_ptr,
				  bitstr_t *node_bitmap, uint32_t min_nodes,
				  uint32_t max_nodes, uint32_t req_nodes,
				  uint16_t mode, list_t *preemptee_candidates,
				  list_t **preemptee_job_list,
				  const struct omru_job_test_tail *tail)
{
	return ops.job_test(job_ptr, node_bitmap, min_nodes, max_nodes,
			    req_nodes, mode, preemptee_candidates,
			    preemptee_job_list, tail->resv_exc_ptr,
			    tail->will_run_ptr);
}

#if HAS_JOB_MEM_REDUCE
extern void select_p_job_mem_reduce(job_record_t *job_ptr)
{
	ops.job_mem_reduce(job_ptr);
}
#endif

