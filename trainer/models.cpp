// models.cpp - see models.hpp.  The architectures are the usual CIFAR
// variants (as in kuangliu/pytorch-cifar): ResNets with a 3x3, 64-channel
// stem and no max-pool, projection shortcuts (1x1 convolution + batch norm)
// where the shape changes, the stride on the 3x3 convolution of a
// bottleneck (ResNet v1.5); VGG16 with batch norm and one 512 -> classes
// linear layer, since 32x32 inputs leave a 1x1x512 map after five pools.
// Every submodule is registered, under the names PyTorch would give it
// (conv1, bn1, layer1.0.conv1, ...), so parameters(), buffers(),
// named_parameters() and the checkpoint see all of them.  Convolutions are
// Kaiming-normal initialised (fan_out, ReLU) and batch norms to weight 1,
// bias 0, as torchvision does; linear layers keep torch's default.
#include "models.hpp"

#include <stdexcept>

namespace omru {
namespace train {
namespace {

namespace nn = torch::nn;

nn::Conv2d conv(int in, int out, int kernel, int stride, bool bias = false)
{
	return nn::Conv2d(nn::Conv2dOptions(in, out, kernel)
				  .stride(stride)
				  .padding(kernel / 2)
				  .bias(bias));
}

nn::BatchNorm2d bn(int channels)
{
	return nn::BatchNorm2d(channels);
}

void init_weights(nn::Module &m)
{
	torch::NoGradGuard no_grad;
	for (const auto &sub : m.modules(/*include_self=*/false)) {
		if (auto *c = sub->as<nn::Conv2d>()) {
			nn::init::kaiming_normal_(c->weight, 0, torch::kFanOut,
						  torch::kReLU);
			if (c->bias.defined())
				nn::init::zeros_(c->bias);
		} else if (auto *b = sub->as<nn::BatchNorm2d>()) {
			nn::init::ones_(b->weight);
			nn::init::zeros_(b->bias);
		}
	}
}

// conv3x3(3->16, stride 2)+BN+ReLU, 2x2 max-pool, conv3x3(16->32)+BN+ReLU
// on the 8x8 map, 2x2 average pool to 4x4, linear 512 -> classes: 10,266
// parameters for 10 classes, a training step at batch 64 in a few ms on one
// core.  Keeping a 4x4 map (not a global pool) before the linear layer is
// what lets it memorise a batch of noise quickly, as the tests have it do.
// Group norm, not batch norm: its output for a sample does not depend on
// the rest of the batch, so N processes of batch B compute exactly what one
// process of batch N x B does, and the tests can check gradient averaging
// against a single process.
struct Tiny final : Net {
	explicit Tiny(int classes)
		: conv1(register_module("conv1", conv(3, 16, 3, 2))),
		  gn1(register_module("gn1", nn::GroupNorm(nn::GroupNormOptions(4, 16)))),
		  conv2(register_module("conv2", conv(16, 32, 3, 1))),
		  gn2(register_module("gn2", nn::GroupNorm(nn::GroupNormOptions(4, 32)))),
		  fc(register_module("fc", nn::Linear(32 * 4 * 4, classes)))
	{
		add_block("conv1", { conv1.ptr(), gn1.ptr() },
			  [this](torch::Tensor x) { return torch::relu(gn1(conv1(x))); });
		add_block("pool1", {}, [](torch::Tensor x) { return torch::max_pool2d(x, 2); });
		add_block("conv2", { conv2.ptr(), gn2.ptr() }, [this](torch::Tensor x) {
			x = torch::relu(gn2(conv2(x)));
			return torch::adaptive_avg_pool2d(x, { 4, 4 }).flatten(1);
		});
		add_block("fc", { fc.ptr() }, [this](torch::Tensor x) { return fc(x); });
	}

	// In registration order (the order of parameters()).
	nn::Conv2d conv1;
	nn::GroupNorm gn1;
	nn::Conv2d conv2;
	nn::GroupNorm gn2;
	nn::Linear fc;
};

// The projection shortcut, or none (identity) when the shape is kept.
struct Shortcut {
	nn::Sequential seq{ nullptr };

	Shortcut(nn::Module &owner, int in, int out, int stride)
	{
		if (stride == 1 && in == out)
			return;
		seq = owner.register_module(
			"shortcut", nn::Sequential(conv(in, out, 1, stride), bn(out)));
	}

	torch::Tensor operator()(const torch::Tensor &x)
	{
		return seq ? seq->forward(x) : x;
	}
};

struct BasicBlock final : nn::Module {
	static constexpr int kExpansion = 1;

	BasicBlock(int in, int planes, int stride)
		: conv1(register_module("conv1", conv(in, planes, 3, stride))),
		  bn1(register_module("bn1", bn(planes))),
		  conv2(register_module("conv2", conv(planes, planes, 3, 1))),
		  bn2(register_module("bn2", bn(planes))),
		  shortcut(*this, in, planes, stride)
	{
	}

	torch::Tensor forward(torch::Tensor x)
	{
		torch::Tensor out = torch::relu(bn1(conv1(x)));
		out = bn2(conv2(out));
		return torch::relu(out + shortcut(x));
	}

	nn::Conv2d conv1;
	nn::BatchNorm2d bn1;
	nn::Conv2d conv2;
	nn::BatchNorm2d bn2;
	Shortcut shortcut;
};

struct Bottleneck final : nn::Module {
	static constexpr int kExpansion = 4;

	Bottleneck(int in, int planes, int stride)
		: conv1(register_module("conv1", conv(in, planes, 1, 1))),
		  bn1(register_module("bn1", bn(planes))),
		  conv2(register_module("conv2", conv(planes, planes, 3, stride))),
		  bn2(register_module("bn2", bn(planes))),
		  conv3(register_module("conv3",
					conv(planes, planes * kExpansion, 1, 1))),
		  bn3(register_module("bn3", bn(planes * kExpansion))),
		  shortcut(*this, in, planes * kExpansion, stride)
	{
	}

	torch::Tensor forward(torch::Tensor x)
	{
		torch::Tensor out = torch::relu(bn1(conv1(x)));
		out = torch::relu(bn2(conv2(out)));
		out = bn3(conv3(out));
		return torch::relu(out + shortcut(x));
	}

	nn::Conv2d conv1;
	nn::BatchNorm2d bn1;
	nn::Conv2d conv2;
	nn::BatchNorm2d bn2;
	nn::Conv2d conv3;
	nn::BatchNorm2d bn3;
	Shortcut shortcut;
};

template <typename B> struct ResNet final : Net {
	ResNet(const int (&blocks)[4], int classes)
		: conv1(register_module("conv1", conv(3, 64, 3, 1))),
		  bn1(register_module("bn1", bn(64)))
	{
		const int planes[4] = { 64, 128, 256, 512 };
		const int strides[4] = { 1, 2, 2, 2 };
		int in = 64;
		for (int s = 0; s < 4; s++) {
			nn::Sequential layer;
			for (int i = 0; i < blocks[s]; i++) {
				layer->push_back(std::make_shared<B>(
					in, planes[s], i == 0 ? strides[s] : 1));
				in = planes[s] * B::kExpansion;
			}
			layers[s] = register_module("layer" + std::to_string(s + 1),
						    layer);
		}
		fc = register_module("fc", nn::Linear(in, classes));
		add_block("stem", { conv1.ptr(), bn1.ptr() },
			  [this](torch::Tensor x) { return torch::relu(bn1(conv1(x))); });
		for (int s = 0; s < 4; s++)
			for (size_t i = 0; i < layers[s]->size(); i++) {
				std::shared_ptr<B> b = layers[s]->template ptr<B>(i);
				add_block("layer" + std::to_string(s + 1) + "." + std::to_string(i),
					  { b }, [b](torch::Tensor x) { return b->forward(x); });
			}
		add_block("head", { fc.ptr() }, [this](torch::Tensor x) {
			return fc(torch::adaptive_avg_pool2d(x, { 1, 1 }).flatten(1));
		});
	}

	nn::Conv2d conv1;
	nn::BatchNorm2d bn1;
	nn::Sequential layers[4] = { nullptr, nullptr, nullptr, nullptr };
	nn::Linear fc{ nullptr };
};

struct Vgg16 final : Net {
	explicit Vgg16(int classes)
	{
		// Channels of each 3x3 convolution; 0 is a 2x2 max-pool.
		static const int kCfg[] = { 64,	 64,  0,   128, 128, 0,
					    256, 256, 256, 0,	512, 512,
					    512, 0,   512, 512, 512, 0 };
		int in = 3;
		for (int c : kCfg) {
			if (c == 0) {
				features->push_back(nn::MaxPool2d(2));
				continue;
			}
			features->push_back(conv(in, c, 3, 1, /*bias=*/true));
			features->push_back(bn(c));
			features->push_back(nn::ReLU());
			in = c;
		}
		register_module("features", features);
		classifier = register_module("classifier", nn::Linear(512, classes));
		// A block per convolution: features[first, end), the pool after
		// it included.
		size_t n = features->size();
		for (size_t first = 0; first < n;) {
			size_t end = first + 3; // conv, BN, ReLU
			if (end < n && features[end]->as<nn::MaxPool2d>())
				end++;
			std::vector<std::shared_ptr<nn::Module>> mods;
			for (size_t i = first; i < end; i++)
				mods.push_back(features[i]);
			add_block("features." + std::to_string(first), mods,
				  [this, first, end](torch::Tensor x) {
					  for (size_t i = first; i < end; i++)
						  x = (features->begin() + static_cast<long>(i))
							      ->forward(x);
					  return x;
				  });
			first = end;
		}
		// 32x32 inputs leave 1x1 after five pools (the pool is then
		// the identity); larger images (JPEG sets) are averaged to it.
		add_block("classifier", { classifier.ptr() }, [this](torch::Tensor x) {
			return classifier(torch::adaptive_avg_pool2d(x, { 1, 1 }).flatten(1));
		});
	}

	nn::Sequential features;
	nn::Linear classifier{ nullptr };
};

} // namespace

torch::Tensor Net::forward(torch::Tensor x)
{
	for (Block &b : blocks_)
		x = b.run(x);
	return x;
}

const std::string &Net::block_name(int i) const
{
	return blocks_.at(static_cast<size_t>(i)).name;
}

torch::Tensor Net::forward_block(int i, torch::Tensor x)
{
	return blocks_.at(static_cast<size_t>(i)).run(x);
}

std::vector<torch::Tensor> Net::block_parameters(int i) const
{
	std::vector<torch::Tensor> out;
	for (const auto &m : blocks_.at(static_cast<size_t>(i)).modules)
		for (const torch::Tensor &p : m->parameters())
			out.push_back(p);
	return out;
}

void Net::add_block(std::string name, std::vector<std::shared_ptr<torch::nn::Module>> modules,
		    std::function<torch::Tensor(torch::Tensor)> run)
{
	blocks_.push_back(Block{ std::move(name), std::move(modules), std::move(run) });
}

const std::vector<std::string> &model_names()
{
	static const std::vector<std::string> names = { "tiny", "resnet18",
							"resnet50", "vgg16" };
	return names;
}

std::shared_ptr<Net> make_model(const std::string &name, int classes)
{
	static const int kResNet18[4] = { 2, 2, 2, 2 };
	static const int kResNet50[4] = { 3, 4, 6, 3 };
	if (classes < 1)
		throw std::invalid_argument("model '" + name +
					    "': classes must be >= 1");
	std::shared_ptr<Net> net;
	if (name == "tiny") {
		net = std::make_shared<Tiny>(classes);
	} else if (name == "resnet18") {
		net = std::make_shared<ResNet<BasicBlock>>(kResNet18, classes);
	} else if (name == "resnet50") {
		net = std::make_shared<ResNet<Bottleneck>>(kResNet50, classes);
	} else if (name == "vgg16") {
		net = std::make_shared<Vgg16>(classes);
	} else {
		std::string all;
		for (const std::string &n : model_names())
			all += (all.empty() ? "" : ", ") + n;
		throw std::invalid_argument("unknown model '" + name +
					    "' (models: " + all + ")");
	}
	init_weights(*net);
	return net;
}

} // namespace train
} // namespace omru
