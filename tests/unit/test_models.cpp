// test_models.cpp - the four networks: output shapes, parameter counts (the
// counts the same architectures have in PyTorch: resnet18 and resnet50 as in
// kuangliu/pytorch-cifar, vgg16 with batch norm and one linear layer),
// registration of every submodule, seeding, the error for an unknown name,
// that the tiny model learns (memorises one batch), and the blocks a
// pipeline stage holds: their names, parameters and chain.
#include <stdexcept>
#include <string>

#include "check_cxx.hpp"
#include "trainer/models.hpp"

using namespace omru::train;

static int64_t count_parameters(torch::nn::Module &m)
{
	int64_t n = 0;
	for (const torch::Tensor &p : m.parameters())
		n += p.numel();
	return n;
}

static void check_output_shape(const char *name)
{
	torch::NoGradGuard no_grad;
	auto net = make_model(name);
	net->eval();
	torch::Tensor y = net->forward(torch::randn({ 2, 3, 32, 32 }));
	ck_assert_msg(y.dim() == 2 && y.size(0) == 2 && y.size(1) == 10,
		      "%s: output shape %s", name, c10::str(y.sizes()).c_str());
}

START_TEST(test_tiny_maps_a_batch_to_ten_logits)
{
	check_output_shape("tiny");
}
END_TEST

START_TEST(test_resnet18_maps_a_batch_to_ten_logits)
{
	check_output_shape("resnet18");
}
END_TEST

START_TEST(test_resnet50_maps_a_batch_to_ten_logits)
{
	check_output_shape("resnet50");
}
END_TEST

START_TEST(test_vgg16_maps_a_batch_to_ten_logits)
{
	check_output_shape("vgg16");
}
END_TEST

START_TEST(test_classes_sets_the_output_width)
{
	torch::NoGradGuard no_grad;
	auto net = make_model("tiny", 100);
	net->eval();
	ck_assert_int_eq(net->forward(torch::randn({ 3, 3, 32, 32 })).size(1), 100);
}
END_TEST

START_TEST(test_parameter_counts_match_pytorch)
{
	// conv 3*16*9, bn 2*16, conv 16*32*9, bn 2*32, linear 512*10 + 10.
	ck_assert_int_eq(count_parameters(*make_model("tiny")), 10266);
	ck_assert_int_eq(count_parameters(*make_model("resnet18")), 11173962);
	ck_assert_int_eq(count_parameters(*make_model("resnet50")), 23520842);
	ck_assert_int_eq(count_parameters(*make_model("vgg16")), 14728266);
}
END_TEST

START_TEST(test_resnet18_registers_every_layer_by_pytorch_name)
{
	auto net = make_model("resnet18");
	auto params = net->named_parameters();
	// 1 stem conv + 16 block convs + 3 projection convs, each with a
	// batch norm (weight, bias), and the linear layer (weight, bias).
	ck_assert_int_eq(params.size(), 20 * 3 + 2);
	for (const char *name :
	     { "conv1.weight", "bn1.weight", "layer1.0.conv1.weight",
	       "layer2.0.shortcut.0.weight", "layer2.0.shortcut.1.bias",
	       "layer4.1.bn2.bias", "fc.weight", "fc.bias" })
		ck_assert_msg(params.contains(name), "no parameter %s", name);
	// Batch norm running mean, variance and batch count for each of 20.
	ck_assert_int_eq(net->buffers().size(), 20 * 3);
	ck_assert(net->named_buffers().contains("layer3.1.bn1.running_var"));
}
END_TEST

START_TEST(test_buffers_of_every_model_are_registered)
{
	// Three buffers per batch norm: resnet50 53, vgg16 13; tiny uses
	// group norm, which has none.
	ck_assert_int_eq(make_model("tiny")->buffers().size(), 0);
	ck_assert_int_eq(make_model("resnet50")->buffers().size(), 53 * 3);
	ck_assert_int_eq(make_model("vgg16")->buffers().size(), 13 * 3);
}
END_TEST

START_TEST(test_convolutions_are_kaiming_initialised)
{
	// fan_out = 512 * 3 * 3 for layer4's 3x3 convolutions: std
	// sqrt(2 / 4608) = 0.0208; batch norms start at weight 1, bias 0.
	torch::manual_seed(1);
	auto net = make_model("resnet18");
	auto params = net->named_parameters();
	double sd = params["layer4.1.conv2.weight"].std().item<double>();
	ck_assert_double_eq_tol(sd, 0.0208, 0.0005);
	ck_assert(params["layer4.1.bn2.weight"].eq(1).all().item<bool>());
	ck_assert(params["layer4.1.bn2.bias"].eq(0).all().item<bool>());
}
END_TEST

START_TEST(test_unknown_model_names_the_known_ones)
{
	std::string msg;
	try {
		make_model("alexnet");
	} catch (const std::invalid_argument &e) {
		msg = e.what();
	}
	ck_assert_string_eq(msg, "unknown model 'alexnet' (models: tiny, resnet18, resnet50, vgg16)");
}
END_TEST

START_TEST(test_model_names_lists_the_four_models)
{
	const auto &names = model_names();
	ck_assert_int_eq(names.size(), 4);
	ck_assert_string_eq(names[0], "tiny");
	ck_assert_string_eq(names[3], "vgg16");
}
END_TEST

START_TEST(test_same_seed_gives_identical_parameters)
{
	torch::manual_seed(42);
	auto a = make_model("resnet18");
	torch::manual_seed(42);
	auto b = make_model("resnet18");
	torch::manual_seed(43);
	auto c = make_model("resnet18");
	auto pa = a->parameters(), pb = b->parameters(), pc = c->parameters();
	ck_assert_int_eq(pa.size(), pb.size());
	for (size_t i = 0; i < pa.size(); i++)
		ck_assert(torch::equal(pa[i], pb[i]));
	ck_assert(!torch::equal(pa[0], pc[0]));
}
END_TEST

START_TEST(test_tiny_memorises_a_batch)
{
	torch::manual_seed(7);
	auto net = make_model("tiny");
	net->train();
	torch::Tensor x = torch::randn({ 64, 3, 32, 32 });
	torch::Tensor y = torch::randint(0, 10, { 64 }, torch::kLong);
	torch::optim::SGD opt(net->parameters(),
			      torch::optim::SGDOptions(0.05).momentum(0.9));
	double first = 0, last = 0;
	for (int step = 0; step < 30; step++) {
		opt.zero_grad();
		torch::Tensor loss =
			torch::nn::functional::cross_entropy(net->forward(x), y);
		loss.backward();
		opt.step();
		last = loss.item<double>();
		if (step == 0)
			first = last;
	}
	ck_assert_msg(last < first / 2, "loss %g -> %g", first, last);
}
END_TEST

// The blocks, run one after another, are the network; their parameters
// are all of its parameters, each once, in parameters() order.
static void check_blocks(const char *name, int want_blocks, const char *first,
			 const char *last)
{
	torch::NoGradGuard no_grad;
	auto net = make_model(name);
	net->eval();
	ck_assert_int_eq(net->blocks(), want_blocks);
	ck_assert_string_eq(net->block_name(0), first);
	ck_assert_string_eq(net->block_name(want_blocks - 1), last);
	torch::Tensor x = torch::randn({ 2, 3, 32, 32 });
	torch::Tensor y = x;
	for (int i = 0; i < net->blocks(); i++)
		y = net->forward_block(i, y);
	ck_assert(torch::equal(y, net->forward(x)));
	std::vector<torch::Tensor> all = net->parameters(), mine;
	for (int i = 0; i < net->blocks(); i++)
		for (const torch::Tensor &p : net->block_parameters(i))
			mine.push_back(p);
	ck_assert_int_eq(mine.size(), all.size());
	for (size_t i = 0; i < all.size(); i++)
		ck_assert(mine[i].is_same(all[i]));
}

START_TEST(test_blocks_chain_into_the_network)
{
	check_blocks("tiny", 4, "conv1", "fc");
	check_blocks("resnet18", 10, "stem", "head");
	check_blocks("resnet50", 18, "stem", "head");
	check_blocks("vgg16", 14, "features.0", "classifier");
}
END_TEST

int main(void)
{
	torch::set_num_threads(1);
	Suite *s = suite_create("models");
	TCase *tc = tcase_create("models");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_tiny_maps_a_batch_to_ten_logits);
	tcase_add_test(tc, test_resnet18_maps_a_batch_to_ten_logits);
	tcase_add_test(tc, test_resnet50_maps_a_batch_to_ten_logits);
	tcase_add_test(tc, test_vgg16_maps_a_batch_to_ten_logits);
	tcase_add_test(tc, test_classes_sets_the_output_width);
	tcase_add_test(tc, test_parameter_counts_match_pytorch);
	tcase_add_test(tc, test_resnet18_registers_every_layer_by_pytorch_name);
	tcase_add_test(tc, test_buffers_of_every_model_are_registered);
	tcase_add_test(tc, test_convolutions_are_kaiming_initialised);
	tcase_add_test(tc, test_unknown_model_names_the_known_ones);
	tcase_add_test(tc, test_model_names_lists_the_four_models);
	tcase_add_test(tc, test_same_seed_gives_identical_parameters);
	tcase_add_test(tc, test_tiny_memorises_a_batch);
	tcase_add_test(tc, test_blocks_chain_into_the_network);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
