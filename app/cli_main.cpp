// tilesight-cli: batch and scripting front end of the engine (DESIGN.md, CLI contract).
// Exit status: 0 all good; 2 bad input; 1 internal error. Never a crash.
#include <CLI/CLI.hpp>
#include <exception>
#include <iostream>

#include "cli_commands.h"
#include "tilesight/util/allocator.h"

int main(int argc, char** argv) {
  tilesight::keep_freed_memory();
  CLI::App app{"TileSight: predict how a tiled GPU kernel performs before it runs"};
  app.set_version_flag("--version", std::string("tilesight-cli ") + TILESIGHT_VERSION);
  app.require_subcommand(1);
  tilesight::cli::Commands commands;
  tilesight::cli::add_predict(app, commands.predict);
  tilesight::cli::add_validate(app, commands.validate);
  tilesight::cli::add_bench(app, commands.bench);
  tilesight::cli::add_profiles(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }
  try {
    return tilesight::cli::run_selected(app, commands);
  } catch (const std::exception& e) {
    std::cerr << "tilesight-cli: internal error: " << e.what() << "\n";
    return 1;
  }
}
