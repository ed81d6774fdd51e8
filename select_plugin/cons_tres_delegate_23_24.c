/*
 * cons_tres_delegate_23_24.c - the select interface of Slurm 23.02 to
 * 24.11 for select/omru_cons_tres: 31 select_p_* entry points (32 in
 * 23.02), each passing the call to select/cons_tres loaded as a plugin
 * context of its own, with the plan glue (plan_glue.c) hooked in where the
 * plan decides: job_test, job_begin, job_fini, reconfigure, state
 * save/restore.
 *
 * The one file that knows this family's interface.  Against 22.05 it lost
 * job_signal, jobinfo_sprint/xstrdup and update_node_config (23.02) and
 * resv_test (23.11); job_test's last argument became a resv_exc_t (23.11)
 * and gained will_run_data_t (24.11).  From 24.05 the ops struct is private
 * to slurmctld's select.c, so its layout is written out here, from the
 * 24.11 source.  24.11 is built and tested (scripts/slurm-release.sh);
 * 23.02-24.05 follow the same sources but are not tested.
 */
#include "config.h"

/* Call libslurm's exported slurm_* names, as Slurm's own plugins do: they
 * exist in libslurm.so (API clients) as well as in libslurmfull. */
#include "src/common/slurm_xlator.h"

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#include "omru_select.h"

#if !OMRU_SLURM_AT_LEAST(23, 2) || OMRU_SLURM_AT_LEAST(25, 5)
#error "cons_tres_delegate_23_24.c implements Slurm 23.02-24.11's select API"
#endif

#include "src/common/plugin.h"
#include "src/common/log.h"

/* job_test's arguments after the preemption lists, by release. */
#if OMRU_SLURM_AT_LEAST(24, 11)
#define JOB_TEST_TAIL_PARAMS resv_exc_t *resv_exc_ptr, will_run_data_t *will_run_ptr
#define JOB_TEST_TAIL_ARGS(t) (t)->resv_exc_ptr, (t)->will_run_ptr
struct omru_job_test_tail {
	resv_exc_t *resv_exc_ptr;
	will_run_data_t *will_run_ptr;
};
#elif OMRU_SLURM_AT_LEAST(23, 11)
#define JOB_TEST_TAIL_PARAMS resv_exc_t *resv_exc_ptr
#define JOB_TEST_TAIL_ARGS(t) (t)->resv_exc_ptr
struct omru_job_test_tail {
	resv_exc_t *resv_exc_ptr;
};
#else
#define JOB_TEST_TAIL_PARAMS bitstr_t *exc_core_bitmap
#define JOB_TEST_TAIL_ARGS(t) (t)->exc_core_bitmap
struct omru_job_test_tail {
	bitstr_t *exc_core_bitmap;
};
#endif
#if OMRU_SLURM_AT_LEAST(23, 11)
#define HAS_RESV_TEST 0
#else
#define HAS_RESV_TEST 1
#endif

/* slurmctld's slurm_select_ops_t of this family: one member per symbol,
 * in the order of delegate_syms. */
typedef struct {
	uint32_t *plugin_id;
	int (*state_save)(char *dir_name);
	int (*state_restore)(char *dir_name);
	int (*job_init)(list_t *job_list);
	int (*node_init)(void);
	int (*job_test)(job_record_t *job_ptr, bitstr_t *bitmap,
			uint32_t min_nodes, uint32_t max_nodes,
			uint32_t req_nodes, uint16_t mode,
			list_t *preemptee_candidates,
			list_t **preemptee_job_list, JOB_TEST_TAIL_PARAMS);
	int (*job_begin)(job_record_t *job_ptr);
	int (*job_ready)(job_record_t *job_ptr);
	int (*job_expand)(job_record_t *from_job_ptr, job_record_t *to_job_ptr);
	int (*job_resized)(job_record_t *job_ptr, node_record_t *node_ptr);
	int (*job_fini)(job_record_t *job_ptr);
	int (*job_suspend)(job_record_t *job_ptr, bool indf_susp);
	int (*job_resume)(job_record_t *job_ptr, bool indf_susp);
	bitstr_t *(*step_pick_nodes)(job_record_t *job_ptr,
				     select_jobinfo_t *step_jobinfo,
				     uint32_t node_count,
				     bitstr_t **avail_nodes);
	int (*step_start)(step_record_t *step_ptr);
	int (*step_finish)(step_record_t *step_ptr, bool killing_step);
	int (*nodeinfo_pack)(select_nodeinfo_t *nodeinfo, buf_t *buffer,
			     uint16_t protocol_version);
	int (*nodeinfo_unpack)(select_nodeinfo_t **nodeinfo, buf_t *buffer,
			       uint16_t protocol_version);
	select_nodeinfo_t *(*nodeinfo_alloc)(void);
	int (*nodeinfo_free)(select_nodeinfo_t *nodeinfo);
	int (*nodeinfo_set_all)(void);
	int (*nodeinfo_set)(job_record_t *job_ptr);
	int (*nodeinfo_get)(select_nodeinfo_t *nodeinfo,
			    enum select_nodedata_type dinfo,
			    enum node_states state, void *data);
	select_jobinfo_t *(*jobinfo_alloc)(void);
	int (*jobinfo_free)(select_jobinfo_t *jobinfo);
	int (*jobinfo_set)(select_jobinfo_t *jobinfo,
			   enum select_jobdata_type data_type, void *data);
	int (*jobinfo_get)(select_jobinfo_t *jobinfo,
			   enum select_jobdata_type data_type, void *data);
	select_jobinfo_t *(*jobinfo_copy)(select_jobinfo_t *jobinfo);
	int (*jobinfo_pack)(select_jobinfo_t *jobinfo, buf_t *buffer,
			    uint16_t protocol_version);
	int (*jobinfo_unpack)(select_jobinfo_t **jobinfo, buf_t *buffer,
			      uint16_t protocol_version);
	int (*get_info_from_plugin)(enum select_plugindata_info dinfo,
				    job_record_t *job_ptr, void *data);
	int (*reconfigure)(void);
#if HAS_RESV_TEST
	bitstr_t *(*resv_test)(resv_desc_msg_t *resv_desc_ptr,
			       uint32_t node_cnt, bitstr_t *avail_bitmap,
			       bitstr_t **core_bitmap);
#endif
} delegate_ops_t;

/* Must list the symbols in the order of delegate_ops_t's members. */
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
	"select_p_get_info_from_plugin",
	"select_p_reconfigure",
#if HAS_RESV_TEST
	"select_p_resv_test",
#endif
};

/* One pointer per member, so the table and the struct cannot drift apart. */
_Static_assert(sizeof(delegate_syms) / sizeof(delegate_syms[0]) ==
		       sizeof(delegate_ops_t) / sizeof(void *),
	       "delegate_syms must name every member of delegate_ops_t");

static delegate_ops_t ops;
static plugin_context_t *context = NULL;

#include "cons_tres_delegate_common.h"
#include "cons_tres_delegate_up_to_24.h"

extern int select_p_job_test(job_record_t *job_ptr, bitstr_t *node_bitmap,
			     uint32_t min_nodes, uint32_t max_nodes,
			     uint32_t req_nodes, uint16_t mode,
			     list_t *preemptee_candidates,
			     list_t **preemptee_job_list, JOB_TEST_TAIL_PARAMS)
{
#if OMRU_SLURM_AT_LEAST(24, 11)
	struct omru_job_test_tail tail = { resv_exc_ptr, will_run_ptr };
#elif OMRU_SLURM_AT_LEAST(23, 11)
	struct omru_job_test_tail tail = { resv_exc_ptr };
#else
	struct omru_job_test_tail tail = { exc_core_bitmap };
#endif
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
			    preemptee_job_list, JOB_TEST_TAIL_ARGS(tail));
}

#if HAS_RESV_TEST
extern bitstr_t *select_p_resv_test(resv_desc_msg_t *resv_desc_ptr,
				    uint32_t node_cnt, bitstr_t *avail_bitmap,
				    bitstr_t **core_bitmap)
{
	return ops.resv_test(resv_desc_ptr, node_cnt, avail_bitmap,
			     core_bitmap);
}
#endif
