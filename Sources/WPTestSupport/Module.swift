// WPTestSupport: fakes and helpers shared by the test targets. Not a product.
// Each area keeps its fakes in its own file (ManualClock.swift, InMemoryLogSink.swift, ...).

package import WPRuntime

/// The manual clock, WPRuntime's (public since the testing product): named here too, so a
/// test importing WPTestSupport alone keeps finding it.
package typealias ManualClock = WPRuntime.ManualClock
