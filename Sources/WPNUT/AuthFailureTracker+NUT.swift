import WPServer

/// Wrong NUT passwords slow their client down exactly as wrong basic-authentication passwords do.
extension AuthFailureTracker: NUTFailureLimiter {}
