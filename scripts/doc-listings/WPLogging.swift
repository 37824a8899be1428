// parameters: record: LogRecord, configuration: Settings, loggingConfiguration: LoggingConfiguration, password: String, console: any LogEncoder, fileSink: any LogSink, sink: any LogSink, session: Session, url: String
import WPLogging

fileprivate struct Settings { var winpowerPassword = ""; var password = "" }
fileprivate struct Session { var token = "" }
