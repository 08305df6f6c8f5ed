// fit's callbacks: the progress bar on a terminal and in a log, TensorBoard's event files,
// checkpoints per epoch (and resuming from them), and early stopping.
#include <catch2/catch.hpp>
#include <filesystem>
#include <regex>
#include <sstream>

#include "duet.h"
#include "proto/event.pb.h"
#include "tests/test_util.h"

namespace duet {
namespace {

namespace fs = std::filesystem;

std::string FreshDir(const std::string& name) {
  const char* root = std::getenv("TEST_TMPDIR");
  const fs::path dir = fs::path(root != nullptr ? root : "/tmp") / "callbacks_test" / name;
  fs::remove_all(dir);
  return dir.string();
}

struct Linear : nn::Module {
  Linear() : nn::Module("linear") {}
  Variable w = add_variable("w", {2, 1}, kFloat32, initializers::constant(0.5));
  Tensor operator()(const Tensor& x) { return matmul(x, w); }
};

Tensor MeanSquaredError(const Tensor& y, const Tensor& y_pred) {
  return reduce_mean(square(y_pred - y));
}

// 12 samples of y = x0 - x1 in batches of 4: three steps an epoch. `known_length` false hides
// the length behind a filter, as a generator or a file would.
data::Dataset Batches(bool known_length = true) {
  const Tensor x = random_normal({12, 2}, 3);
  const auto samples = data::Dataset::from_tensor_slices({x, matmul(x, Tensor({{1.f}, {-1.f}}))});
  return (known_length ? samples : samples.filter([](const data::Element&) { return true; }))
      .batch(4);
}

// Trains a fresh Linear for `epochs` with `callbacks`, validating on the training batches.
History Train(int epochs, std::vector<CallbackRef> callbacks, bool known_length = true) {
  Linear model;
  optimizers::SGD opt(0.1);
  return fit(model, MeanSquaredError, opt, Batches(known_length),
             {.epochs = epochs, .validation = Batches(), .callbacks = std::move(callbacks)});
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST_CASE("ProgressBar writes plain lines when not on a terminal") {
  std::ostringstream out;
  Train(2, {ProgressBar({.out = &out, .terminal = false, .plain_interval_seconds = 0})},
        /*known_length=*/false);
  const std::string text = out.str();
  CHECK(text.find('\r') == std::string::npos);
  const std::vector<std::string> lines = Lines(text);
  REQUIRE(lines.size() == 10);  // per epoch: the header, a line per step, the epoch's line
  CHECK(lines[0] == "Epoch 1/2");
  // The first epoch's length is unknown until it ends (the dataset's cardinality is unknown);
  // the second's is known.
  CHECK(std::regex_match(lines[1],
                         std::regex(R"( +1/Unknown - \d+s \d+[mu]?s/step - loss: \d\.\d{4})")));
  CHECK(std::regex_match(lines[6], std::regex(R"(1/3 - ETA: \d+s - loss: \d\.\d{4})")));
  const std::regex epoch_line(
      R"(3/3 - \d+s \d+[mu]?s/step - loss: \d\.\d{4} - val_loss: \d\.\d{4})");
  CHECK(std::regex_match(lines[4], epoch_line));
  CHECK(lines[5] == "Epoch 2/2");
  CHECK(std::regex_match(lines[9], epoch_line));
}

TEST_CASE("ProgressBar redraws one line per epoch on a terminal") {
  std::ostringstream out;
  Train(2, {ProgressBar({.out = &out, .terminal = true, .terminal_interval_seconds = 0})});
  const std::vector<std::string> lines = Lines(out.str());
  REQUIRE(lines.size() == 4);  // "Epoch i/2" and the epoch's redrawn line, twice
  CHECK(lines[0] == "Epoch 1/2");
  CHECK(lines[2] == "Epoch 2/2");
  // The bar fills and the ETA shows from the first step: the length is the dataset's cardinality.
  CHECK(lines[1].find("1/3 [=========>....................] - ETA: ") != std::string::npos);
  for (const std::string& line : {lines[1], lines[3]}) {
    INFO(line);
    CHECK(std::count(line.begin(), line.end(), '\r') == 4);  // three steps and the epoch's end
    const std::string last = line.substr(line.rfind('\r') + 1);
    CHECK(std::regex_match(last, std::regex(R"(3/3 \[=+\] - \d+s \d+[mu]?s/step - loss: \d\.\d{4})"
                                            R"( - val_loss: \d\.\d{4})")));
  }
  CHECK(lines[3].find("2/3 [===================>..........] - ETA: ") != std::string::npos);
}

// The Events of the one event file in `logdir`.
std::vector<tensorflow::Event> ReadEvents(const std::string& logdir) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(logdir)) files.push_back(entry.path());
  REQUIRE(files.size() == 1);
  std::vector<tensorflow::Event> events;
  for (auto& record : data::TFRecordDataset(files[0].string())) {
    events.emplace_back().ParseFromString(record[0].item<std::string>());
  }
  return events;
}

// tag -> the (step, value) pairs of its scalars in `logdir`.
std::map<std::string, std::vector<std::pair<int64_t, double>>> Scalars(const std::string& logdir) {
  std::map<std::string, std::vector<std::pair<int64_t, double>>> scalars;
  for (const tensorflow::Event& event : ReadEvents(logdir)) {
    for (const auto& value : event.summary().value()) {
      scalars[value.tag()].emplace_back(event.step(), value.simple_value());
    }
  }
  return scalars;
}

TEST_CASE("TensorBoard writes the epochs' values as Keras lays them out") {
  const std::string logdir = FreshDir("tensorboard");
  const History h = Train(2, {TensorBoard(logdir, /*update_freq=*/2)});
  const auto train = Scalars(logdir + "/train");
  const auto validation = Scalars(logdir + "/validation");
  REQUIRE(train.count("epoch_loss"));
  REQUIRE(validation.count("epoch_loss"));
  for (int epoch : {0, 1}) {
    CHECK(train.at("epoch_loss")[epoch].first == epoch);
    CHECK(train.at("epoch_loss")[epoch].second == Approx(h.history.at("loss")[epoch]));
    CHECK(validation.at("epoch_loss")[epoch].second == Approx(h.history.at("val_loss")[epoch]));
  }
  // Every second of the six steps.
  REQUIRE(train.count("batch_loss"));
  CHECK(train.at("batch_loss").size() == 3);
  CHECK(train.at("batch_loss")[2].first == 6);
}

TEST_CASE("ModelCheckpoint saves every epoch, and a run resumes from the last") {
  const std::string dir = FreshDir("checkpoints");
  Linear model;
  optimizers::SGD opt(0.1);
  Checkpoint checkpoint({{"model", &model}, {"optimizer", &opt}});
  CheckpointManager manager(checkpoint, dir, /*max_to_keep=*/2);
  auto saver = std::make_shared<ModelCheckpoint>(manager);
  fit(model, MeanSquaredError, opt, Batches(), {.epochs = 3, .callbacks = {saver}});
  CHECK(saver->last_saved() == dir + "/ckpt-3");
  CHECK(manager.checkpoints() == std::vector<std::string>{dir + "/ckpt-2", dir + "/ckpt-3"});

  // A new process: restore, then go on from the epochs the checkpoint counted.
  Linear resumed;
  optimizers::SGD resumed_opt(0.1);
  Checkpoint restored({{"model", &resumed}, {"optimizer", &resumed_opt}});
  restored.restore(latest_checkpoint(dir));
  testing::ExpectTensorNear(resumed.w, model.w, 0);
  CHECK(restored.save_counter().value().item<int64_t>() == 3);
  CHECK(resumed_opt.iterations().value().item<int64_t>() == 9);
}

TEST_CASE("ModelCheckpoint with save_best_only saves the improving epochs only") {
  const std::string dir = FreshDir("best_only");
  Linear model;
  optimizers::SGD opt(0.1);
  Checkpoint checkpoint({{"model", &model}});
  CheckpointManager manager(checkpoint, dir, /*max_to_keep=*/0);
  ModelCheckpoint saver(manager, {.save_best_only = true, .monitor = "val_loss"});
  TrainingState state{.model = &model, .epochs = 4};
  for (double val_loss : {0.5, 0.4, 0.45, 0.3}) {
    Logs logs;
    logs.set("val_loss", val_loss);
    saver.on_epoch_end(0, logs, state);
  }
  CHECK(manager.checkpoints().size() == 3);  // 0.5, 0.4 and 0.3
}

// Feeds `values` of `monitor` to `stop` as epochs 0, 1, ...; sets the model's w to the epoch
// number before each. Returns the epochs run.
int FeedEpochs(EarlyStopping& stop, Linear& model, const std::string& monitor,
               const std::vector<double>& values) {
  TrainingState state{.model = &model, .epochs = static_cast<int>(values.size())};
  stop.on_train_begin(state);
  int epoch = 0;
  for (; epoch < static_cast<int>(values.size()) && !state.stop_training; ++epoch) {
    model.w.assign(fill({2, 1}, static_cast<float>(epoch)));
    Logs logs;
    logs.set(monitor, values[epoch]);
    stop.on_epoch_end(epoch, logs, state);
  }
  return epoch;
}

TEST_CASE("EarlyStopping stops after `patience` epochs without improvement") {
  Linear model;
  EarlyStopping by_loss({.patience = 1});
  CHECK(FeedEpochs(by_loss, model, "val_loss", {1.0, 0.8, 0.9, 0.85, 0.7}) == 4);
  CHECK(by_loss.stopped_epoch() == 3);
  CHECK(by_loss.best_epoch() == 1);

  // Accuracies should grow: the monitor picks the direction from the name.
  EarlyStopping by_accuracy({.monitor = "val_accuracy", .min_delta = 0.05});
  CHECK(FeedEpochs(by_accuracy, model, "val_accuracy", {0.5, 0.6, 0.62, 0.9}) == 3);
  CHECK(by_accuracy.best_epoch() == 1);

  EarlyStopping patient({.patience = 5});
  CHECK(FeedEpochs(patient, model, "val_loss", {1.0, 2.0, 3.0}) == 3);
  CHECK(patient.stopped_epoch() == -1);
}

TEST_CASE("EarlyStopping restores the best epoch's variables") {
  Linear model;
  EarlyStopping stop({.patience = 1, .restore_best_weights = true});
  FeedEpochs(stop, model, "val_loss", {1.0, 0.5, 0.7, 0.8});
  testing::ExpectTensorNear(model.w, fill({2, 1}, 1.f), 0);  // epoch 1's
}

TEST_CASE("EarlyStopping ends fit") {
  auto stop = std::make_shared<EarlyStopping>(
      EarlyStoppingOptions{.monitor = "loss", .min_delta = 1e9});  // nothing counts as better
  const History h = Train(10, {stop});
  CHECK(h.epoch.size() == 2);
  CHECK(stop->stopped_epoch() == 1);
}

}  // namespace
}  // namespace duet
