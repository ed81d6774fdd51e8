// models.hpp - the networks omru-train trains, sized for CIFAR-10 (32x32x3,
// 10 classes): resnet18 and resnet50 (He et al., with the CIFAR stem: one
// 3x3 convolution, no max-pool), vgg16 (with batch norm, one linear layer),
// and a tiny CNN for fast tests.  Each ends in a global average pool, so the
// same network takes larger images (a JPEG set's 64x64 or 224x224 crops) at
// a compute cost that grows with the pixels, as on ImageNet.
#ifndef OMRU_TRAINER_MODELS_HPP
#define OMRU_TRAINER_MODELS_HPP

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <torch/torch.h>

namespace omru {
namespace train {

// A classifier: [B, 3, S, S] (S >= 32) -> [B, classes] logits, built as a
// sequence of blocks - what a pipeline stage holds and what the layer
// profile (omru-train --profile-layers) times: forward(x) runs them in
// order.  resnet18: stem, the 8 residual blocks (layer1.0 ... layer4.1),
// head (pool + fc); resnet50: stem, 16 bottlenecks, head; vgg16: 13
// convolution blocks (conv + BN + ReLU, with the max-pool that follows),
// classifier; tiny: conv1, pool1, conv2, fc.
struct Net : torch::nn::Module {
	torch::Tensor forward(torch::Tensor x);

	int blocks() const { return static_cast<int>(blocks_.size()); }
	const std::string &block_name(int i) const;
	// Block i on its input (block i - 1's output, or the images).
	torch::Tensor forward_block(int i, torch::Tensor x);
	// Its parameters, in the order of parameters().
	std::vector<torch::Tensor> block_parameters(int i) const;

    protected:
	// IN modules: the registered submodules it runs (their parameters
	// are the block's); IN run: the block's forward.
	void add_block(std::string name,
		       std::vector<std::shared_ptr<torch::nn::Module>> modules,
		       std::function<torch::Tensor(torch::Tensor)> run);

    private:
	struct Block {
		std::string name;
		std::vector<std::shared_ptr<torch::nn::Module>> modules;
		std::function<torch::Tensor(torch::Tensor)> run;
	};
	std::vector<Block> blocks_;
};

// "tiny", "resnet18", "resnet50", "vgg16".
const std::vector<std::string> &model_names();
// Throws std::invalid_argument naming the allowed models for another name.
// Parameters are initialised from torch's global generator: seed it
// (torch::manual_seed) first for identical replicas.
std::shared_ptr<Net> make_model(const std::string &name, int classes = 10);

} // namespace train
} // namespace omru

#endif
