/*
 * cons_tres_delegate_common.h - the select entry points every release
 * family has with one signature, each passed to select/cons_tres (with the
 * plan glue hooked in at job_begin, job_fini and reconfigure), and the
 * loading of cons_tres itself.  Included once, by the family's
 * cons_tres_delegate_*.c, after it defines `ops` (its ops struct, members
 * named as slurmctld's), `context` and `delegate_syms`.
 */
#ifndef OMRU_CONS_TRES_DELEGATE_COMMON_H
#define OMRU_CONS_TRES_DELEGATE_COMMON_H

extern int omru_delegate_load(void)
{
	if (context)
		return SLURM_SUCCESS;
	/* A context of its own, which slurmctld's select.c does not know
	 * (from 25.05 it loads only the configured select plugin). */
	context = plugin_context_create("select", OMRU_DELEGATE_TYPE,
					(void **) &ops, delegate_syms,
					sizeof(delegate_syms));
	if (!context) {
		error("select/omru_cons_tres: cannot load %s from PluginDir: "
		      "this plugin needs it to keep Slurm's resource accounting",
		      OMRU_DELEGATE_TYPE);
		return SLURM_ERROR;
	}
	return SLURM_SUCCESS;
}

extern void omru_delegate_unload(void)
{
	if (context)
		plugin_context_destroy(context);
	context = NULL;
	memset(&ops, 0, sizeof(ops));
}

extern uint32_t omru_delegate_plugin_id(void)
{
	return (context && ops.plugin_id) ? *ops.plugin_id : 0;
}

extern int select_p_node_init(void)
{
	return ops.node_init();
}

extern int select_p_job_begin(job_record_t *job_ptr)
{
	omru_job_begin(job_ptr);
	return ops.job_begin(job_ptr);
}

extern int select_p_job_ready(job_record_t *job_ptr)
{
	return ops.job_ready(job_ptr);
}

extern int select_p_job_expand(job_record_t *from_job_ptr,
			       job_record_t *to_job_ptr)
{
	return ops.job_expand(from_job_ptr, to_job_ptr);
}

extern int select_p_job_resized(job_record_t *job_ptr,
				node_record_t *node_ptr)
{
	return ops.job_resized(job_ptr, node_ptr);
}

extern int select_p_job_fini(job_record_t *job_ptr)
{
	omru_job_fini(job_ptr);
	return ops.job_fini(job_ptr);
}

extern int select_p_job_suspend(job_record_t *job_ptr, bool indf_susp)
{
	return ops.job_suspend(job_ptr, indf_susp);
}

extern int select_p_job_resume(job_record_t *job_ptr, bool indf_susp)
{
	return ops.job_resume(job_ptr, indf_susp);
}

extern int select_p_select_nodeinfo_set_all(void)
{
	return ops.nodeinfo_set_all();
}

extern int select_p_select_nodeinfo_set(job_record_t *job_ptr)
{
	return ops.nodeinfo_set(job_ptr);
}

extern int select_p_reconfigure(void)
{
	omru_plan_reconfigure();
	return ops.reconfigure();
}

#endif
