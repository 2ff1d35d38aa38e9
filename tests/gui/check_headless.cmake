# Runs `tilesight` as a user without a display would, twice: the default name in the
# current folder, and --screenshot with another plan. Each run must exit 0, print the text
# report and leave a non-empty PNG.
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})

function(check_run png)
  execute_process(COMMAND ${TILESIGHT} ${ARGN} WORKING_DIRECTORY ${WORK_DIR}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 90)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "tilesight ${ARGN} exited with ${rc}\n${out}\n${err}")
  endif()
  if(NOT out MATCHES "TileSight prediction: .*Latency .*Diagnosis")
    message(FATAL_ERROR "tilesight ${ARGN} printed no text report:\n${out}\n${err}")
  endif()
  if(NOT EXISTS ${png})
    message(FATAL_ERROR "tilesight ${ARGN} wrote no ${png}\n${err}")
  endif()
  file(SIZE ${png} size)
  file(READ ${png} magic LIMIT 4 HEX)
  if(size LESS 10000 OR NOT magic STREQUAL "89504e47")
    message(FATAL_ERROR "${png} is not a PNG of the window (${size} bytes, starts ${magic})")
  endif()
endfunction()

check_run(${WORK_DIR}/tilesight-main-window.png)
get_filename_component(examples ${CMAKE_CURRENT_LIST_DIR}/../../resources/examples ABSOLUTE)
check_run(${WORK_DIR}/custom.png ${examples}/custom_gemm_h200.json --screenshot ${WORK_DIR}/custom.png --hw h100)

# A bad plan: exit status 2 and the file named on stderr, no crash.
file(WRITE ${WORK_DIR}/bad.json "{\"kernel\": \"gemm\", \"hardware\": \"h200\", \"params\": {\"M\": 0}}")
execute_process(COMMAND ${TILESIGHT} ${WORK_DIR}/bad.json --screenshot ${WORK_DIR}/bad.png
                WORKING_DIRECTORY ${WORK_DIR} RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_QUIET TIMEOUT 90)
if(NOT rc EQUAL 2 OR NOT err MATCHES "bad.json: (line [0-9]+: )?params.M")
  message(FATAL_ERROR "a bad plan gave exit status ${rc} and:\n${err}")
endif()
