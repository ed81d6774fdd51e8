/*
 * raw_submit.c - submits a batch job through libslurm's API with a
 * spank_job_env the caller writes, bypassing sbatch and spank_omru's
 * checks: what any user can send slurmctld.  The integration tests use it
 * to show that garbage there never harms select/omru_cons_tres.
 *
 * usage: omru-raw-submit GPUS NAME=VALUE...   (prints the job id)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <slurm/slurm.h>

int main(int argc, char **argv)
{
	job_desc_msg_t d;
	submit_response_msg_t *resp = NULL;
	char tres[64], cwd[4096];
	char *env[] = { "PATH=/usr/bin:/bin", NULL };

	if (argc < 3) {
		fprintf(stderr, "usage: %s GPUS NAME=VALUE...\n", argv[0]);
		return 2;
	}
	slurm_init(NULL);
	slurm_init_job_desc_msg(&d);
	snprintf(tres, sizeof(tres), "gres:gpu:%d", atoi(argv[1]));
	d.name = "omru-raw-submit";
	d.script = "#!/bin/sh\necho raw job ran\n";
	d.environment = env;
	d.env_size = 1;
	d.user_id = getuid();
	d.group_id = getgid();
	d.work_dir = getcwd(cwd, sizeof(cwd));
	d.std_out = "/dev/null";
	d.time_limit = 1;
	d.tres_per_job = tres;
	d.spank_job_env = argv + 2;
	d.spank_job_env_size = argc - 2;
	if (slurm_submit_batch_job(&d, &resp) != SLURM_SUCCESS) {
		slurm_perror("omru-raw-submit");
		return 1;
	}
	printf("%u\n", resp->job_id);
	slurm_free_submit_response_response_msg(resp);
	slurm_fini();
	return 0;
}
