// parameters: logger: WPLogger, loaded: LoadedConfiguration, inputs: ConfigurationInputs, configuration: ExporterConfiguration, stop: @escaping @Sendable () async -> Void, snapshotText: @escaping @Sendable () -> String
// parameters WebConfigSupport.swift: loaded: LoadedConfiguration, configuration: inout WPHTTPServer.Configuration, router: WPRouter, log: WPLogger
import Foundation
import WPConfig
import WPExporter
import WPLogging
import WPMetrics
import WPPushgateway
import WPRuntime
import WPServer
