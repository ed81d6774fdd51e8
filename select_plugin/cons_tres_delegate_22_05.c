/*
 * cons_tres_delegate_22_05.c - Slurm 22.05's select interface for
 * select/omru_cons_tres: the 36 select_p_* entry points, each passing the
 * call to select/cons_tres loaded as a plugin context of its own, with the
 * plan glue (plan_glue.c) hooked in where the plan decides: job_test,
 * job_begin, job_fini, reconfigure, state save/restore.  Those 22.05 shares
 * with later releases are in cons_tres_delegate_common.h and
 * cons_tres_delegate_up_to_24.h; here are job_test and what only 22.05 has.
 *
 * This is the one file that knows the 22.05 interface.  Later releases
 * change it (23.02 moved it to src/interfaces/, 23.11 changed job_test's last
 * argument, 24.11 added one, 25.05 cut it to 12 functions); each family has
 * its own delegate file (cons_tres_delegate_23_24.c, _25_plus.c), chosen
 * by Makefile.am from the Slurm version.
 */
#include "config.h"

/* Call libslurm's exported slurm_* names, as Slurm's own plugins do: they
 * exist in libslurm.so (API clients) as well as in libslurmfull. */
#include "src/common/slurm_xlator.h"

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#if SLURM_VERSION_NUMBER < SLURM_VERSION_NUM(22, 5, 0) || \
	SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 2, 0)
#error "cons_tres_delegate_22_05.c implements only Slurm 22.05's select API"
#endif

#include "src/common/plugin.h"
#include "src/common/log.h"
#include "omru_select.h"

/* job_test's argument after the preemption lists (omru_select.h). */
struct omru_job_test_tail {
	bitstr_t *exc_core_bitmap;
};

/* Must list the symbols in the order of slurm_select_ops_t's members. */
static const char *delegate_syms[] = {
	"plugin_id",
	"select_p_state_save",
	"select_p_state_restore",
	"select_p_job_init",
	"select_p_node_init",
	"select_p_job_test",
	"select_p_job_begin",
	"select_p_job_ready",
	"select_p_job_expand",
	"select_p_job_resized",
	"select_p_job_signal",
	"select_p_job_fini",
	"select_p_job_suspend",
	"select_p_job_resume",
	"select_p_step_pick_nodes",
	"select_p_step_start",
	"select_p_step_finish",
	"select_p_select_nodeinfo_pack",
	"select_p_select_nodeinfo_unpack",
	"select_p_select_nodeinfo_alloc",
	"select_p_select_nodeinfo_free",
	"select_p_select_nodeinfo_set_all",
	"select_p_select_nodeinfo_set",
	"select_p_select_nodeinfo_get",
	"select_p_select_jobinfo_alloc",
	"select_p_select_jobinfo_free",
	"select_p_select_jobinfo_set",
	"select_p_select_jobinfo_get",
	"select_p_select_jobinfo_copy",
	"select_p_select_jobinfo_pack",
	"select_p_select_jobinfo_unpack",
	"select_p_select_jobinfo_sprint",
	"select_p_select_jobinfo_xstrdup",
	"select_p_get_info_from_plugin",
	"select_p_update_node_config",
	"select_p_reconfigure",
	"select_p_resv_test",
};

/* One pointer per member, so the table and the struct cannot drift apart. */
_Static_assert(sizeof(delegate_syms) / sizeof(delegate_syms[0]) ==
		       sizeof(slurm_select_ops_t) / sizeof(void *),
	       "delegate_syms must name every member of slurm_select_ops_t");

static slurm_select_ops_t ops;
static plugin_context_t *context = NULL;

#include "cons_tres_delegate_common.h"
#include "cons_tres_delegate_up_to_24.h"

extern int select_p_job_test(job_record_t *job_ptr, bitstr_t *node_bitmap,
			     uint32_t min_nodes, uint32_t max_nodes,
			     uint32_t req_nodes, uint16_t mode,
			     List preemptee_candidates,
			     List *preemptee_job_list,
			     bitstr_t *exc_core_bitmap)
{
	struct omru_job_test_tail tail = { exc_core_bitmap };
	return omru_job_test(job_ptr, node_bitmap, min_nodes, max_nodes,
			     req_nodes, mode, preemptee_candidates,
			     preemptee_job_list, &tail);
}

extern int omru_delegate_job_test(job_record_t *job_ptr,
				  bitstr_t *node_bitmap, uint32_t min_nodes,
				  uint32_t max_nodes, uint32_t req_nodes,
				  uint16_t mode, List preemptee_candidates,
				  List *preemptee_job_list,
				  const struct omru_job_test_tail *tail)
{
	return ops.job_test(job_ptr, node_bitmap, min_nodes, max_nodes,
			    req_nodes, mode, preemptee_candidates,
			    preemptee_job_list, tail->exc_core_bitmap);
}

extern int select_p_job_signal(job_record_t *job_ptr, int signal)
{
	return ops.job_signal(job_ptr, signal);
}

extern char *select_p_select_jobinfo_sprint(select_jobinfo_t *jobinfo,
					    char *buf, size_t size, int mode)
{
	return ops.jobinfo_sprint(jobinfo, buf, size, mode);
}

extern char *select_p_select_jobinfo_xstrdup(select_jobinfo_t *jobinfo,
					     int mode)
{
	return ops.jobinfo_xstrdup(jobinfo, mode);
}

extern int select_p_update_node_config(int index)
{
	return ops.update_node_config(index);
}

extern bitstr_t *select_p_resv_test(resv_desc_msg_t *resv_desc_ptr,
				    uint32_t node_cnt, bitstr_t *avail_bitmap,
				    bitstr_t **core_bitmap)
{
	return ops.resv_test(resv_desc_ptr, node_cnt, avail_bitmap,
			     core_bitmap);
}
