// layer_profile.hpp - a model as the pipeline partitioner sees it: an ordered
// sequence of layers, each with its forward and backward time as a function
// of the micro-batch size, the bytes it sends on (its output), the bytes it
// keeps from forward to backward (its stash) and its parameter bytes.
//
// The file (doc/partition-formats.md) is the CSV dialect of the simulator's
// formats: columns layer,batch,fwd_ms,bwd_ms,out_bytes,stash_bytes,
// param_bytes; one row per layer and profiled batch size, layers in model
// order (the order of their first rows).  A layer profiled at two or more
// batch sizes gets a line time(b) = fixed + per_sample * b fitted by least
// squares (the fixed part is what makes small micro-batches slow on a
// GPU); at one batch size its time is taken as proportional to the batch.
// Bytes are per sample, from the layer's largest profiled batch.
#ifndef OMRU_PIPELINE_LAYER_PROFILE_HPP
#define OMRU_PIPELINE_LAYER_PROFILE_HPP

#include <string>
#include <vector>

#include "job_options.hpp" // Parsed

namespace omru {
namespace pipeline {

// time(m) = fixed_s + per_sample_s * m, for a micro-batch of m samples.
struct LinearTime {
	double fixed_s = 0;
	double per_sample_s = 0;
	double at(double m) const { return fixed_s + per_sample_s * m; }
};

struct LayerCost {
	std::string name;
	LinearTime fwd, bwd;
	double out_bytes_per_sample = 0;   // the output: what a boundary after it sends
	double stash_bytes_per_sample = 0; // allocated by its forward and alive
					   // until its backward, output included
	double param_bytes = 0;
};

struct LayerProfile {
	std::vector<LayerCost> layers;
};

// Parses the file's text (`name` for messages).  Errors read
// "NAME:LINE:COL: message" like every CSV format of the project.
Parsed<LayerProfile> parse_layer_profile(const std::string &name,
					 const std::string &text);
Parsed<LayerProfile> read_layer_profile(const std::string &path);

// Upper bounds the parser enforces (a profile past them is not a model).
constexpr int kMaxLayers = 512;
constexpr int kMaxProfiledBatch = 1 << 20;

} // namespace pipeline
} // namespace omru

#endif
