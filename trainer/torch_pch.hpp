// torch_pch.hpp - what every trainer file includes first, compiled once
// into trainer/torch_pch.hpp.gch (Makefile.am): libtorch's headers are most
// of each file's compile time.  Files still include what they use.
#include <torch/torch.h>
