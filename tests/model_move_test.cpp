// Moving a Model or a Session hands it over: nothing is copied, nothing can throw, and what is
// left behind says so when used instead of running on a stale reference.

#include <doctest/doctest.h>

#include <memory>
#include <string>
#include <type_traits>
#include <utility>

#include "irlite/irlite.hpp"

using namespace irlite;

static_assert(std::is_nothrow_move_constructible_v<Model>);
static_assert(std::is_nothrow_move_assignable_v<Model>);
static_assert(std::is_nothrow_move_constructible_v<Session>);
static_assert(std::is_nothrow_move_assignable_v<Session>);
// The library's own way in is not the caller's.
static_assert(!std::is_constructible_v<Model, std::shared_ptr<const detail::ModelImpl>>);

namespace {

Model identity() {
  return Model::load(std::string(IRLITE_MODELS) + "/dynamic_identity.xml");
}

// The input, which the output shares (an identity), outlives the runs.
float x[6] = {1, 2, 3, 4, 5, 6};

Outputs run_once(Session& session) {
  return session.run({{"x", Tensor::view(ElementType::f32, {2, 3}, x)}});
}

}  // namespace

TEST_CASE("a moved Model runs, and the moved-from one refuses every use with a usage error") {
  Model m = identity();
  Model moved = std::move(m);
  Session session(moved);
  CHECK(run_once(session)[0].second.data<float>()[5] == 6.0f);

  // NOLINTBEGIN(bugprone-use-after-move): the moved-from state is what is tested.
  const auto moved_from = [](auto&& use) {
    try {
      use();
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::usage);
      CHECK(std::string(e.what()).find("moved from") != std::string::npos);
      return true;
    }
    return false;
  };
  CHECK(moved_from([&] { (void)m.inputs(); }));
  CHECK(moved_from([&] { (void)m.layers(); }));
  CHECK(moved_from([&] { (void)m.name(); }));
  CHECK(moved_from([&] { (void)m.reshape({}); }));
  CHECK(moved_from([&] { Session s(m); }));

  // Assigning to it makes it a Model again.
  m = moved;
  CHECK(m.inputs().size() == 1);
  Model other = identity();
  other = std::move(m);
  CHECK(other.outputs().size() == 1);
  CHECK(moved_from([&] { (void)m.outputs(); }));
  // NOLINTEND(bugprone-use-after-move)
}

TEST_CASE("a moved Session runs, and the moved-from one refuses to") {
  Session session(identity());
  Session moved = std::move(session);
  CHECK(run_once(moved).size() == 1);
  // NOLINTNEXTLINE(bugprone-use-after-move): the moved-from state is what is tested.
  CHECK_THROWS_AS(run_once(session), Error);
}
