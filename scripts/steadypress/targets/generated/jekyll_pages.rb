# steadypress's plugin for a Jekyll build: once the site is written, each page's source file,
# address and output file, and the gems that made them, as JSON in $STEADYPRESS_PAGES. It is
# loaded beside the project's own plugins, from outside the project, and changes nothing.
require "json"

Jekyll::Hooks.register :site, :post_write do |site|
  target = ENV["STEADYPRESS_PAGES"]
  next if target.nil? || target.empty?

  dest = File.join(site.dest, "")
  documents = site.collections.values.flat_map(&:docs) + site.pages
  pages = documents.select(&:write?).map do |document|
    {
      "source" => document.relative_path,
      "url" => document.url,
      "output" => document.destination(site.dest).delete_prefix(dest),
    }
  end
  File.write(
    target,
    JSON.generate(
      "url" => site.config["url"].to_s,
      "baseurl" => site.baseurl.to_s,
      "gems" => Gem.loaded_specs.values.map { |spec| "#{spec.name}-#{spec.version}" }.sort,
      "pages" => pages,
    ),
  )
end
