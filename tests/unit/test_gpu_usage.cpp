// test_gpu_usage.cpp - what spank_omru samples a job's GPUs with: the GPU
// list SLURM_JOB_GPUS gives, read as minor numbers, and the C API's answer
// on a node (NVML where the driver is; here, usually, a clear "no NVML").
// The sampling itself is checked on a GPU machine with omru-profile
// gpu-use (doc/omru-profile.1), against nvidia-smi.
#include "check_cxx.hpp"

#include <string>
#include <vector>

#include "node/gpu_usage.hpp"
#include "omru/omru_gpu.h"

using namespace omru;

namespace {

std::string minors(const std::string &text)
{
	std::vector<int> out;
	if (!parse_gpu_minors(text, out))
		return "refused";
	std::string s;
	for (int m : out)
		s += (s.empty() ? "" : ",") + std::to_string(m);
	return s;
}

} // namespace

START_TEST(test_gpu_lists_read_as_slurm_writes_them)
{
	// (std::string compared whole: ck_assert_str_eq would keep a pointer
	// into a temporary past its end.)
	const char *cases[][2] = { { "0", "0" },		{ "0,2", "0,2" },
				   { "0-3", "0,1,2,3" },	{ "6,0-1,1", "0,1,6" },
				   { "1023", "1023" } };
	for (const auto &c : cases)
		ck_assert_msg(minors(c[0]) == c[1], "'%s' read as '%s', not '%s'", c[0],
			      minors(c[0]).c_str(), c[1]);
	for (const char *bad : { "", ",", "0,", "a", "-1", "3-1", "0-", "1024", "0 1", "0x1",
				 "99999", "1,,2" })
		ck_assert_msg(minors(bad) == "refused", "accepted '%s'", bad);
}
END_TEST

START_TEST(test_the_c_api_samples_or_says_why_not)
{
	double g = -1, m = -1;
	char err[256];
	int n = omru_gpu_sample("0-x", &g, &m, err, sizeof(err));
	ck_assert_int_eq(n, 0);
	ck_assert_str_eq(err, "GPU list '0-x' is not minor numbers");
	n = omru_gpu_sample("", &g, &m, err, sizeof(err));
	if (n > 0) { // a node with NVML and GPUs
		ck_assert(g >= 0 && g <= 100 && m >= 0 && m <= 100);
		ck_assert_str_eq(err, "");
	} else {
		ck_assert_msg(err[0] != '\0', "no devices and no reason");
		ck_assert(g == -1 && m == -1);
	}
	// A short buffer is cut, never overrun.
	char tiny[8];
	omru_gpu_sample("0-x", nullptr, nullptr, tiny, sizeof(tiny));
	ck_assert_str_eq(tiny, "GPU lis");
}
END_TEST

int main()
{
	Suite *s = suite_create("gpu_usage");
	TCase *t = tcase_create("core");
	tcase_add_test(t, test_gpu_lists_read_as_slurm_writes_them);
	tcase_add_test(t, test_the_c_api_samples_or_says_why_not);
	suite_add_tcase(s, t);
	return run_suite(s);
}
