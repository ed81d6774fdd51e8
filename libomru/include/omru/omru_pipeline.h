/*
 * omru_pipeline.h - the pipeline-hybrid partitioner (libomru/pipeline/,
 * doc/partition-formats.md) for C callers.  Nothing here throws; messages
 * go into caller buffers (NUL-terminated when errlen > 0).
 */
#ifndef OMRU_OMRU_PIPELINE_H
#define OMRU_OMRU_PIPELINE_H

#include <stddef.h>

#include "omru/omru.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct omru_partition_request {
	const char *layers_csv; /* the layer profile's text */
	size_t layers_len;
	const char *links; /* one node's gres.conf Links= values, one GPU per
			      line; NULL or "" when unknown (PCIe) */
	int nodes;	   /* >= 1, every node alike */
	int gpus_per_node; /* >= 1 */
	int global_batch;  /* samples per iteration, >= 1 */
	double mem_limit_bytes; /* per GPU; 0: no limit */
	double param_copies;	/* weights + gradients + optimizer state; 0: 3 */
	double nvlink_gbps, pcie_gbps, network_gbps; /* per link; 0: default */
	double latency_s; /* per message; < 0: default */
} omru_partition_request_t;

/*
 * omru_partition_json - the fastest split of the model onto the GPUs, as
 * the JSON object of doc/partition-formats.md (best, data_parallel,
 * speedup).
 * IN req: the request; OUT out: the JSON (outlen bytes at most).
 * RET OMRU_OK; OMRU_EINVAL when the input is bad, nothing fits memory or
 * the JSON does not fit out (err says which).
 */
int omru_partition_json(const omru_partition_request_t *req, char *out,
			size_t outlen, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
