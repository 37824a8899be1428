// The first example of docs/logging.md, as written there (only wrapped in a function). Its Time
// example shows bare expressions and their values, which do not compile without warnings; the
// durations example is in SchedulerSnippets.swift.
import WPLogging

func loggingSnippet(loggingConfiguration: LoggingConfiguration, winpowerPassword: String,
                    baseURL: String, token: String) throws {
    let redactor = Redactor(secrets: [winpowerPassword])
    let log = try loggingConfiguration.makeLogger(label: "wpexporter", redactor: redactor)
    let clientLog = log.child(label: "client", fields: ["base_url": "\(baseURL)"])
    clientLog.info("login ok", ["session_expires_in_s": 3600])
    redactor.setSecret(token, named: "winpower.token")   // masked from now on, everywhere
}
