// c_api_handle.hpp - what an omru_ctl_t is (omru/omru_ctl.h): the
// controller and what its C entry points keep beside it.  Shared by the
// C boundary's files (c_api_controller.cpp, c_api_elastic.cpp).
#ifndef OMRU_CONTROLLER_C_API_HANDLE_HPP
#define OMRU_CONTROLLER_C_API_HANDLE_HPP

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "controller/controller.hpp"
#include "controller/omru_conf.hpp"
#include "profile/store_file.hpp"

struct omru_ctl {
	omru::controller::OmruConf conf;
	std::string state_dir;
	std::string warnings;
	std::string layer_models; // LayerProfileDir='s models, ", "-joined
	// ColocationFile= / ColocationSignals= as read (null: none), for the log.
	std::shared_ptr<const omru::InterferenceModel> interference;
	std::unique_ptr<omru::controller::Controller> ctl;
	omru::controller::Snapshot snap;
	bool snap_ok = false;
	// Jobs handed to the snapshot being filled, and (sorted) to the last
	// plan, whether it took them or not: a pending job outside the latter
	// is new to the planner (omru_ctl_offered).
	std::vector<uint32_t> offering, offered;
	// The store file as last read or written here: a different one means
	// omru-profile changed it, and the store thread reads it again.
	omru::profiler::StoreStamp store_stamp;
};

#endif
