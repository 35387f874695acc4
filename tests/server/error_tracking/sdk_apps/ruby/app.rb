# A small app reporting to Outpost with sentry-ruby (Debian's 5.3.0, envelope endpoint):
# `ruby app.rb DSN`. An exception raised in charge_card is captured with a cart large enough
# (over 30 KB) that the SDK gzips the request, then a warning message. Prints whether it compressed.
require "sentry-ruby"

# Observes the SDK's own decision; the transport itself is unchanged.
module ReportCompression
  def should_compress?(data)
    super.tap { |compressed| puts "compressed=#{compressed} bytes=#{data.bytesize}" }
  end
end
Sentry::HTTPTransport.prepend(ReportCompression)

Sentry.init do |config|
  config.dsn = ARGV.fetch(0)
  config.release = "shop-ruby@1.0.0"
  config.environment = "production"
  config.background_worker_threads = 0 # send before returning
end

def charge_card(amount)
  raise ArgumentError, "card declined for #{amount}"
end

begin
  charge_card(42)
rescue ArgumentError => e
  Sentry.capture_exception(e, extra: { cart: Array.new(400) { |i| "item-#{i}-" + "x" * 80 } })
end
Sentry.capture_message("queue backlog", level: :warning)
