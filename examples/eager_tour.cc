// A short tour of eager duet: tensors, broadcasting, matmul, reductions, printing, gradients,
// errors.
#include <iostream>

#include "duet.h"

using namespace duet;

int main() {
  Tensor a = constant({{1.f, 2.f}, {3.f, 4.f}});
  std::cout << "a =\n" << a << "\n\n";

  // Scalars and rows broadcast NumPy-style.
  Tensor b = a + 1;
  Tensor row = constant({10.f, 20.f});
  std::cout << "a + 1 =\n" << b << "\n\n";
  std::cout << "a * [10, 20] =\n" << a * row << "\n\n";

  Tensor m = matmul(a, a);
  std::cout << "matmul(a, a) =\n" << m << "\n\n";
  std::cout << "reduce_sum(m, 1) = " << reduce_sum(m, {1}) << "\n";
  std::cout << "softmax(a) =\n" << softmax(a) << "\n\n";

  std::vector<float> values = m.to_vector<float>();
  std::cout << "m as a vector: " << values[0] << ", " << values[1] << ", " << values[2] << ", "
            << values[3] << "\n";
  std::cout << "random_normal({2, 3}, seed=7) =\n" << random_normal({2, 3}, 7) << "\n\n";

  // Gradients: a tape records ops on watched tensors and trainable variables.
  Variable w(constant({{0.5f, -1.f}, {2.f, 0.f}}), "w");
  {
    GradientTape tape;
    Tensor loss = reduce_sum(relu(matmul(a, w)));
    std::cout << "d loss / d w =\n" << tape.gradient(loss, {w})[0] << "\n\n";
  }
  auto d_square = gradients_function([](Tensor x) { return x * x; });
  auto d2_square = gradients_function([&](Tensor x) { return d_square(x)[0]; });
  std::cout << "d(x*x)/dx at 3 = " << d_square(3.f)[0] << ", second derivative "
            << d2_square(3.f)[0] << "\n\n";

  // Mistakes are errors that name the op, the dtypes, the shapes and your line.
  try {
    matmul(a, constant({{1.f, 2.f, 3.f}}));
  } catch (const Error& e) {
    std::cout << "error: " << e.what() << "\n";
  }
  return 0;
}
