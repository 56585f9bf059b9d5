#pragma once
// irlite: a small interpreter for OpenVINO IR models.
//
//   irlite::Model model = irlite::Model::load("model.xml");
//   irlite::Session session(model);
//   auto outputs = session.run({{"x", irlite::Tensor(irlite::ElementType::f32, {2, 3})}});

#include "irlite/custom_op.hpp"
#include "irlite/element_dispatch.hpp"
#include "irlite/element_type.hpp"
#include "irlite/error.hpp"
#include "irlite/float16.hpp"
#include "irlite/input_file.hpp"
#include "irlite/model.hpp"
#include "irlite/ops.hpp"
#include "irlite/outputs.hpp"
#include "irlite/profile.hpp"
#include "irlite/shape.hpp"
#include "irlite/tensor.hpp"
#include "irlite/version.hpp"
