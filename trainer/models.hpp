// models.hpp - the networks omru-train trains, sized for CIFAR-10 (32x32x3,
// 10 classes): resnet18 and resnet50 (He et al., with the CIFAR stem: one
// 3x3 convolution, no max-pool), vgg16 (with batch norm, one linear layer),
// and a tiny CNN for fast tests.  Each ends in a global average pool, so the
// same network takes larger images (a JPEG set's 64x64 or 224x224 crops) at
// a compute cost that grows with the pixels, as on ImageNet.
#ifndef OMRU_TRAINER_MODELS_HPP
#define OMRU_TRAINER_MODELS_HPP

#include <memory>
#include <string>
#include <vector>

#include <torch/torch.h>

namespace omru {
namespace train {

// A classifier: [B, 3, S, S] (S >= 32) -> [B, classes] logits.
struct Net : torch::nn::Module {
	virtual torch::Tensor forward(torch::Tensor x) = 0;
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
