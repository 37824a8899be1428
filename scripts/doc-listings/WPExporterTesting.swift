// parameters: port: Int
import Testing
import WPExporterTesting
