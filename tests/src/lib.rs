//! Shared helpers for the integration tests (fixture reading, expectation comments).
