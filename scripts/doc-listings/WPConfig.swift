// parameters: files: FileAccess, inputs: ConfigurationInputs
import Foundation
import WPConfig
