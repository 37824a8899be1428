extension LoggingConfiguration {
    /// Builds the sink this configuration describes.
    ///
    /// - `stdout` / `stderr`: a ``StreamSink`` on descriptor 1 / 2, written from a thread of
    ///   its own (``StreamSink/Delivery/background``): close the sink before the process exits.
    /// - `file`: a ``RotatingFileSink`` at ``filePath`` (its directory is created when missing).
    /// - `both`: a ``MultiplexingSink`` writing to standard output and the file.
    ///
    /// The encoder follows ``format`` and ``callerPolicy``. Console colours are used only for a
    /// stream whose descriptor ``LoggingEnvironment/isTerminal`` reports as a terminal; the
    /// file never gets colours.
    ///
    /// - Parameter environment: Clock, terminal detection and failure reporting; real ones by
    ///   default.
    /// - Returns: The sink, ready to use.
    /// - Throws: ``LoggingError/invalidConfiguration(key:message:)`` for the first out-of-range
    ///   setting (see ``problems()``), or the ``RotatingFileSink`` error naming the path and the
    ///   reason when the file or its directory cannot be created or opened.
    public func makeSink(environment: LoggingEnvironment = LoggingEnvironment()) throws(LoggingError) -> any LogSink {
        if let problem = problems().first { throw problem }
        switch output {
        case .stdout:
            return streamSink(fileDescriptor: 1, name: "stdout", environment: environment)
        case .stderr:
            return streamSink(fileDescriptor: 2, name: "stderr", environment: environment)
        case .file:
            return try fileSink(environment: environment)
        case .both:
            let file = try fileSink(environment: environment)
            return MultiplexingSink([streamSink(fileDescriptor: 1, name: "stdout", environment: environment), file])
        }
    }

    /// Builds a logger at ``level`` writing to ``makeSink(environment:)``.
    ///
    /// ```swift
    /// let redactor = Redactor(secrets: [configuration.winpowerPassword])
    /// let log = try loggingConfiguration.makeLogger(label: "wpexporter", redactor: redactor)
    /// let clientLog = log.child(label: "client")   // shares the sink and the redactor
    /// ```
    ///
    /// - Parameters:
    ///   - label: The root logger's label; children usually replace it with their component.
    ///   - redactor: The secrets to mask; keep a reference to register more later.
    ///   - environment: Clock, terminal detection and failure reporting; real ones by default.
    /// - Returns: The logger.
    /// - Throws: As ``makeSink(environment:)``.
    public func makeLogger(label: String, redactor: Redactor = Redactor(),
                           environment: LoggingEnvironment = LoggingEnvironment()) throws(LoggingError) -> WPLogger {
        let sink = try makeSink(environment: environment)
        return WPLogger(label: label, level: level, sink: sink, now: environment.now, redactor: redactor)
    }

    /// The encoder for this configuration; `colors` applies to the console format only.
    public func makeEncoder(colors: Bool) -> any LogEncoder {
        switch format {
        case .json: JSONLogEncoder(caller: callerPolicy)
        case .console: ConsoleLogEncoder(caller: callerPolicy, colors: colors)
        }
    }

    private func streamSink(fileDescriptor: Int32, name: String, environment: LoggingEnvironment) -> StreamSink {
        StreamSink(fileDescriptor: fileDescriptor,
                   encoder: makeEncoder(colors: environment.isTerminal(fileDescriptor)),
                   name: name, reportFailure: environment.reportFailure, delivery: .background)
    }

    private func fileSink(environment: LoggingEnvironment) throws(LoggingError) -> RotatingFileSink {
        try RotatingFileSink(configuration: rotation, encoder: makeEncoder(colors: false),
                             now: environment.now, reportFailure: environment.reportFailure)
    }
}
