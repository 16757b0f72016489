//! zorder and its peers for benchmarks.
