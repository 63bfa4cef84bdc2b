// Structured log lines (one JSON object each), which CloudWatch Logs Insights can query by field.
export interface Logger {
  error(message: string, data?: Record<string, unknown>): void
  warn(message: string, data?: Record<string, unknown>): void
}

export const consoleLogger: Logger = {
  error: (message, data) => console.error(JSON.stringify({ level: 'error', message, ...data })),
  warn: (message, data) => console.warn(JSON.stringify({ level: 'warn', message, ...data })),
}
