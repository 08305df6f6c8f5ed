#include "eager/gradient_tape.h"

#include <catch2/catch.hpp>

#include "duet.h"
#include "tests/test_util.h"

namespace duet {
namespace {

using testing::ExpectError;
using testing::ExpectTensor;

TEST_CASE("d(w * w)/dw is 2 at w = 1 (eager guide)") {
  Variable w(constant(1.0f), "w");
  GradientTape tape;
  Tensor loss = w * w;
  ExpectTensor(tape.gradient(loss, {w})[0], kFloat32, {}, {2});
}

TEST_CASE("gradients of tensors and variables together (API.md)") {
  Variable w(constant(1.0f), "w");
  Tensor x = constant(3.0f);
  GradientTape tape;
  tape.watch(x);
  Tensor loss = w * w * x;
  std::vector<Tensor> g = tape.gradient(loss, {w, x});
  ExpectTensor(g[0], kFloat32, {}, {6});  // 2 w x
  ExpectTensor(g[1], kFloat32, {}, {1});  // w w
}

TEST_CASE("a source the target does not depend on gets an undefined gradient") {
  Tensor x = constant(2.0), y = constant(5.0);
  GradientTape tape;
  tape.watch(x);
  tape.watch(y);
  Tensor z = x * x;
  std::vector<Tensor> g = tape.gradient(z, {x, y, constant(1.0)});
  ExpectTensor(g[0], kFloat64, {}, {4});
  CHECK(!g[1].defined());
  CHECK(!g[2].defined());  // never watched
}

TEST_CASE("fan-out gradients are summed and several targets add up") {
  Tensor x = constant({1.0, 2.0});
  GradientTape tape(/*persistent=*/true);
  tape.watch(x);
  Tensor a = x * x, b = x * 3.0, c = exp(x);
  Tensor y = a + b + c;  // x is used three times
  const double e1 = std::exp(1.0), e2 = std::exp(2.0);
  ExpectTensor(tape.gradient(y, {x})[0], kFloat64, {2}, {2 + 3 + e1, 4 + 3 + e2}, 1e-12);
  ExpectTensor(tape.gradient({a, b}, {x})[0], kFloat64, {2}, {2 + 3, 4 + 3});
}

TEST_CASE("output_gradients apply the chain rule with upstream gradients") {
  Tensor x = constant({1.0, 2.0, 3.0});
  GradientTape tape;
  tape.watch(x);
  Tensor y = x * x;
  ExpectTensor(tape.gradient(y, {x}, {constant({1.0, 10.0, 100.0})})[0], kFloat64, {3},
               {2, 40, 600});
}

TEST_CASE("output_gradients must match the targets") {
  Tensor x = constant({1.0, 2.0});
  GradientTape tape(true);
  tape.watch(x);
  Tensor y = x * x;
  ExpectError([&] { tape.gradient(y, {x}, {constant(1.0)}); }, {"output_gradients[0]", "(2,)"});
  ExpectError([&] { tape.gradient(y, {x}, {y, y}); }, {"2 output_gradients for 1 targets"});
}

TEST_CASE("a non-persistent tape allows one gradient call") {
  Tensor x = constant(3.0);
  GradientTape tape;
  tape.watch(x);
  Tensor y = x * x;
  ExpectTensor(tape.gradient(y, {x})[0], kFloat64, {}, {6});
  ExpectError([&] { tape.gradient(y, {x}); }, {"only be called once", "persistent"});
}

TEST_CASE("a persistent tape gives repeated, correct results") {
  Tensor x = constant(3.0);
  GradientTape tape(/*persistent=*/true);
  tape.watch(x);
  Tensor y = x * x;
  Tensor z = y * y;  // x^4
  for (int i = 0; i < 3; ++i) {
    ExpectTensor(tape.gradient(z, {x})[0], kFloat64, {}, {108});
    ExpectTensor(tape.gradient(y, {x})[0], kFloat64, {}, {6});
  }
  ExpectTensor(tape.gradient(z, {y})[0], kFloat64, {}, {18});  // an intermediate as source
}

TEST_CASE("a tape records until stop()") {
  Tensor x = constant(2.0);
  GradientTape tape;
  tape.watch(x);
  Tensor y = x * x;
  tape.stop();
  Tensor z = y * x;  // not recorded
  CHECK(!tape.gradient(z, {x})[0].defined());
}

TEST_CASE("integer tensors carry no gradient and stop_gradient blocks") {
  Tensor x = constant({1.5, 2.5});
  GradientTape tape(true);
  tape.watch(x);
  Tensor through_int = cast(cast(x, kInt32), kFloat64) * x;
  ExpectTensor(tape.gradient(through_int, {x})[0], kFloat64, {2}, {1, 2});  // only the direct x
  Tensor blocked = stop_gradient(x * x) + x;
  ExpectTensor(tape.gradient(blocked, {x})[0], kFloat64, {2}, {1, 1});
}

TEST_CASE("trainable variables are watched automatically, others are not") {
  Variable trainable(constant(2.0), "a");
  Variable frozen(constant(3.0), "b", /*trainable=*/false);
  GradientTape tape(true);
  Tensor y = trainable * frozen;
  std::vector<Tensor> g = tape.gradient(y, {trainable, frozen});
  ExpectTensor(g[0], kFloat64, {}, {3});
  CHECK(!g[1].defined());
  GradientTape watching;
  watching.watch(frozen);
  Tensor y2 = trainable * frozen;
  ExpectTensor(watching.gradient(y2, {frozen})[0], kFloat64, {}, {2});
}

TEST_CASE("watch_accessed_variables=false watches only what watch() names, eagerly and traced") {
  Variable a(constant(2.0), "a");
  Variable b(constant(3.0), "b");
  auto grads = [&] {
    GradientTape tape(/*persistent=*/false, /*watch_accessed_variables=*/false);
    tape.watch(b);
    Tensor y = a * b;
    return tape.gradient(y, {a, b});
  };
  std::vector<Tensor> g = grads();
  CHECK(!g[0].defined());
  ExpectTensor(g[1], kFloat64, {}, {2});

  bool a_defined = true;
  auto traced = duet::function([&] {
    std::vector<Tensor> t = grads();
    a_defined = t[0].defined();
    return t[1];
  });
  ExpectTensor(traced(), kFloat64, {}, {2});
  CHECK(!a_defined);
}

TEST_CASE("gradients flow through Variable reads after assignments") {
  Variable v(constant(1.0), "v");
  v.assign(constant(4.0));
  GradientTape tape;
  Tensor first = v * v;  // 16: read at 4
  v.assign_add(constant(1.0));
  Tensor second = v * 10.0;  // read at 5
  ExpectTensor(tape.gradient(first + second, {v})[0], kFloat64, {}, {8 + 10});
  ExpectTensor(first, kFloat64, {}, {16});
}

TEST_CASE("nested tapes give higher-order gradients") {
  Tensor x = constant(3.0);
  GradientTape outer;
  outer.watch(x);
  Tensor dy_dx;
  {
    GradientTape inner;
    inner.watch(x);
    Tensor y = x * x * x;
    dy_dx = inner.gradient(y, {x})[0];  // 3 x^2, recorded by the outer tape
  }
  ExpectTensor(dy_dx, kFloat64, {}, {27});
  ExpectTensor(outer.gradient(dy_dx, {x})[0], kFloat64, {}, {18});  // 6 x
}

TEST_CASE("a tape releases what it recorded after its one gradient call") {
  Tensor x = constant({1.0, 2.0});
  GradientTape tape;
  tape.watch(x);
  Tensor e = exp(x);  // Exp keeps its output for the gradient
  std::weak_ptr<TensorImpl> kept = e.impl();
  Tensor y = e * 2.0;
  e = Tensor();
  CHECK(!kept.expired());
  tape.gradient(y, {x});
  CHECK(kept.expired());
}

TEST_CASE("a tape entry keeps only what the gradient needs") {
  Tensor x = constant({1.0, -2.0});
  GradientTape tape;
  tape.watch(x);
  Tensor h = x * 2.0;
  std::weak_ptr<TensorImpl> relu_input = h.impl();
  Tensor r = relu(h);  // Relu keeps its output, not its input
  h = Tensor();
  CHECK(relu_input.expired());
  ExpectTensor(tape.gradient(r, {x})[0], kFloat64, {2}, {2, 0});
}

TEST_CASE("a backward function returning the wrong number of gradients is a clear error") {
  auto bad = custom_gradient([](Tensor x) {
    return std::make_pair(x * 2.0, [](Tensor) -> std::vector<Tensor> { return {}; });
  });
  Tensor x = constant(1.0);
  GradientTape tape;
  tape.watch(x);
  Tensor y = bad(x);
  ExpectError([&] { tape.gradient(y, {x}); }, {"custom_gradient", "returned 0 gradients"});
}

}  // namespace
}  // namespace duet
