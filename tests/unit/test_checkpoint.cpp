// test_checkpoint.cpp - a checkpoint restores the model (parameters and
// batch-norm running statistics), the optimizer (momentum buffers) and the
// progress exactly; a missing file is "no checkpoint", a damaged one or one
// of another model is an error naming the path; writing leaves no temporary
// file behind.  Uses the tiny model, trained a few steps so that running
// statistics and momentum are not at their initial values.
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "check_cxx.hpp"
#include "trainer/checkpoint.hpp"

using namespace omru::train;

static std::string g_dir;

static void make_dir(void)
{
	char tmpl[] = "/tmp/omru-test-checkpoint.XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(tmpl));
	g_dir = tmpl;
}

static void remove_dir(void)
{
	DIR *d = opendir(g_dir.c_str());
	if (d) {
		while (struct dirent *e = readdir(d)) {
			std::string n = e->d_name;
			if (n != "." && n != "..")
				unlink((g_dir + "/" + n).c_str());
		}
		closedir(d);
	}
	rmdir(g_dir.c_str());
}

static std::vector<std::string> dir_entries(void)
{
	std::vector<std::string> v;
	DIR *d = opendir(g_dir.c_str());
	while (struct dirent *e = readdir(d)) {
		std::string n = e->d_name;
		if (n != "." && n != "..")
			v.push_back(n);
	}
	closedir(d);
	return v;
}

static torch::optim::SGD make_sgd(Net &net)
{
	return torch::optim::SGD(net.parameters(),
				 torch::optim::SGDOptions(0.05).momentum(0.9));
}

// A few training steps: moves parameters, running statistics and momentum.
static void train_steps(Net &net, torch::optim::Optimizer &opt, int steps)
{
	net.train();
	torch::manual_seed(99);
	torch::Tensor x = torch::randn({ 16, 3, 32, 32 });
	torch::Tensor y = torch::randint(0, 10, { 16 }, torch::kLong);
	for (int i = 0; i < steps; i++) {
		opt.zero_grad();
		torch::nn::functional::cross_entropy(net.forward(x), y).backward();
		opt.step();
	}
}

static Progress sample_progress(void)
{
	Progress p;
	p.model = "tiny";
	p.epochs_done = 7;
	p.samples_into_epoch = 1234; // stopped mid-epoch (an elastic job)
	p.world_size = 4;
	p.global_batch = 512;
	p.seed = 0xfedcba9876543210ull; // above INT64_MAX
	p.lr = { 0.4, 0.2, 7.0, 512 };
	return p;
}

static torch::Tensor momentum_of(torch::optim::Optimizer &opt,
				 const torch::Tensor &param)
{
	auto &state = opt.state().at(
		c10::guts::to_string(param.unsafeGetTensorImpl()));
	return static_cast<torch::optim::SGDParamState &>(*state)
		.momentum_buffer();
}

static std::string load_error(const std::string &path, Net &net,
			      torch::optim::Optimizer &opt,
			      const std::string &model)
{
	Progress p;
	try {
		load_checkpoint(path, net, opt, p, model);
	} catch (const std::runtime_error &e) {
		return e.what();
	}
	return "";
}

// Batch-norm running statistics are buffers, not parameters: resnet18's
// are set to values no fresh model has, saved, and must come back.
START_TEST(test_load_restores_batch_norm_buffers)
{
	torch::manual_seed(1);
	auto a = make_model("resnet18");
	auto opt_a = make_sgd(*a);
	{
		torch::NoGradGuard no_grad;
		int i = 0;
		for (auto &kv : a->named_buffers())
			kv.value().fill_(i++ % 7 + 2);
	}
	const std::string path = g_dir + "/bn.pt";
	Progress written = sample_progress();
	written.model = "resnet18";
	save_checkpoint(path, *a, opt_a, written);
	auto b = make_model("resnet18");
	auto opt_b = make_sgd(*b);
	Progress p;
	ck_assert(load_checkpoint(path, *b, opt_b, p, "resnet18"));
	auto ba = a->named_buffers(), bb = b->named_buffers();
	ck_assert_int_eq(ba.size(), 60);
	for (const auto &kv : ba)
		ck_assert_msg(torch::equal(kv.value(), bb[kv.key()]), "%s",
			      kv.key().c_str());
	ck_assert_int_eq(bb["bn1.num_batches_tracked"].item<int64_t>(), 4);
}
END_TEST

START_TEST(test_load_restores_parameters_momentum_and_progress)
{
	torch::manual_seed(1);
	auto a = make_model("tiny");
	auto opt_a = make_sgd(*a);
	train_steps(*a, opt_a, 3);
	const std::string path = g_dir + "/ck.pt";
	save_checkpoint(path, *a, opt_a, sample_progress());

	torch::manual_seed(2);
	auto b = make_model("tiny");
	auto opt_b = make_sgd(*b);
	ck_assert(!torch::equal(a->parameters()[0], b->parameters()[0]));
	Progress p;
	ck_assert(load_checkpoint(path, *b, opt_b, p, "tiny"));

	auto pa = a->named_parameters(), pb = b->named_parameters();
	ck_assert_int_eq(pa.size(), pb.size());
	for (const auto &kv : pa) {
		ck_assert_msg(torch::equal(kv.value(), pb[kv.key()]), "%s",
			      kv.key().c_str());
		ck_assert(pb[kv.key()].requires_grad());
		ck_assert(torch::equal(momentum_of(opt_a, kv.value()),
				       momentum_of(opt_b, pb[kv.key()])));
	}

	ck_assert_string_eq(p.model, "tiny");
	ck_assert_int_eq(p.epochs_done, 7);
	ck_assert_int_eq(p.samples_into_epoch, 1234);
	ck_assert_int_eq(p.world_size, 4);
	ck_assert_int_eq(p.global_batch, 512);
	ck_assert(p.seed == 0xfedcba9876543210ull);
	ck_assert_double_eq(p.lr.from_lr, 0.4);
	ck_assert_double_eq(p.lr.target_lr, 0.2);
	ck_assert_double_eq(p.lr.warmup_start_epoch, 7.0);
	ck_assert_int_eq(p.lr.global_batch, 512);
}
END_TEST

START_TEST(test_training_resumes_identically_after_load)
{
	// Two more steps from the loaded copy match two more steps of the
	// original: momentum and options were restored into the optimizer.
	torch::manual_seed(1);
	auto a = make_model("tiny");
	auto opt_a = make_sgd(*a);
	train_steps(*a, opt_a, 2);
	const std::string path = g_dir + "/ck.pt";
	save_checkpoint(path, *a, opt_a, sample_progress());
	torch::manual_seed(2);
	auto b = make_model("tiny");
	auto opt_b = make_sgd(*b);
	Progress p;
	ck_assert(load_checkpoint(path, *b, opt_b, p, "tiny"));

	train_steps(*a, opt_a, 2);
	train_steps(*b, opt_b, 2);
	auto pa = a->parameters(), pb = b->parameters();
	for (size_t i = 0; i < pa.size(); i++)
		ck_assert(torch::equal(pa[i], pb[i]));
}
END_TEST

START_TEST(test_missing_file_returns_false_and_changes_nothing)
{
	auto net = make_model("tiny");
	auto opt = make_sgd(*net);
	torch::Tensor before = net->parameters()[0].clone();
	Progress p;
	p.epochs_done = 3;
	ck_assert(!load_checkpoint(g_dir + "/none.pt", *net, opt, p, "tiny"));
	ck_assert_int_eq(p.epochs_done, 3);
	ck_assert(torch::equal(net->parameters()[0], before));
}
END_TEST

START_TEST(test_truncated_file_throws_naming_the_path)
{
	auto net = make_model("tiny");
	auto opt = make_sgd(*net);
	const std::string path = g_dir + "/ck.pt";
	save_checkpoint(path, *net, opt, sample_progress());
	struct stat st;
	ck_assert_int_eq(stat(path.c_str(), &st), 0);
	ck_assert_int_eq(truncate(path.c_str(), st.st_size / 2), 0);

	std::string msg = load_error(path, *net, opt, "tiny");
	ck_assert_msg(msg.find(path) != std::string::npos, "message: %s",
		      msg.c_str());
}
END_TEST

START_TEST(test_garbage_file_throws_naming_the_path)
{
	const std::string path = g_dir + "/ck.pt";
	std::ofstream(path) << "not a checkpoint\n";
	auto net = make_model("tiny");
	auto opt = make_sgd(*net);
	std::string msg = load_error(path, *net, opt, "tiny");
	ck_assert_msg(msg.find(path) != std::string::npos, "message: %s",
		      msg.c_str());
}
END_TEST

START_TEST(test_checkpoint_of_another_model_is_refused)
{
	auto tiny = make_model("tiny");
	auto opt = make_sgd(*tiny);
	const std::string path = g_dir + "/ck.pt";
	save_checkpoint(path, *tiny, opt, sample_progress());

	auto vgg = make_model("vgg16");
	auto opt_vgg = make_sgd(*vgg);
	torch::Tensor before = vgg->parameters()[0].clone();
	ck_assert_string_eq(load_error(path, *vgg, opt_vgg, "vgg16"),
			    "checkpoint " + path + " is for model 'tiny', not 'vgg16'");
	ck_assert(torch::equal(vgg->parameters()[0], before));
}
END_TEST

START_TEST(test_save_leaves_only_the_checkpoint)
{
	auto net = make_model("tiny");
	auto opt = make_sgd(*net);
	const std::string path = g_dir + "/ck.pt";
	save_checkpoint(path, *net, opt, sample_progress());
	save_checkpoint(path, *net, opt, sample_progress()); // over the first
	std::vector<std::string> files = dir_entries();
	ck_assert_int_eq(files.size(), 1);
	ck_assert_string_eq(files[0], "ck.pt");
}
END_TEST

START_TEST(test_save_into_a_missing_directory_throws)
{
	auto net = make_model("tiny");
	auto opt = make_sgd(*net);
	const std::string path = g_dir + "/no/such/dir/ck.pt";
	std::string msg;
	try {
		save_checkpoint(path, *net, opt, sample_progress());
	} catch (const std::runtime_error &e) {
		msg = e.what();
	}
	ck_assert_msg(msg.find(path) != std::string::npos, "message: %s",
		      msg.c_str());
	ck_assert_int_eq(dir_entries().size(), 0);
}
END_TEST

int main(void)
{
	torch::set_num_threads(1);
	Suite *s = suite_create("checkpoint");
	TCase *tc = tcase_create("checkpoint");
	tcase_add_checked_fixture(tc, make_dir, remove_dir);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_load_restores_parameters_momentum_and_progress);
	tcase_add_test(tc, test_load_restores_batch_norm_buffers);
	tcase_add_test(tc, test_training_resumes_identically_after_load);
	tcase_add_test(tc, test_missing_file_returns_false_and_changes_nothing);
	tcase_add_test(tc, test_truncated_file_throws_naming_the_path);
	tcase_add_test(tc, test_garbage_file_throws_naming_the_path);
	tcase_add_test(tc, test_checkpoint_of_another_model_is_refused);
	tcase_add_test(tc, test_save_leaves_only_the_checkpoint);
	tcase_add_test(tc, test_save_into_a_missing_directory_throws);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
