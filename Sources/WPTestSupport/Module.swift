// WPTestSupport: fakes and helpers shared by the test targets. Not a product.
// Each area keeps its fakes in its own file (ManualClock.swift, InMemoryLogSink.swift, ...).
