// parameters: log: WPLogger, logger: WPLogger, clock: ContinuousClock, cache: Cache
import WPLogging
import WPScheduler

fileprivate final class Cache: Sendable { func refresh() async {} }
