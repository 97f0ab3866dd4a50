# zk_tristate(NAME DOC) -- a build switch that takes AUTO, ON or OFF.
#   AUTO  use the dependency when it is found
#   ON    require it: configuration fails when it is missing
#   OFF   never use it
# Any other value is a configuration error.
function(zk_tristate name doc)
  set(${name} AUTO CACHE STRING "${doc} (AUTO|ON|OFF)")
  set_property(CACHE ${name} PROPERTY STRINGS AUTO ON OFF)
  string(TOUPPER "${${name}}" v)
  if(NOT v MATCHES "^(AUTO|ON|OFF)$")
    message(FATAL_ERROR "${name}=${${name}}: expected AUTO, ON or OFF")
  endif()
  set(${name} "${v}" PARENT_SCOPE)
endfunction()

# zk_resolve(NAME FOUND) -- turn the tri-state NAME into ZK_HAVE_<suffix>:
# fails for ON without the dependency, otherwise sets the result in the
# parent scope.
function(zk_resolve name found outvar)
  if(${name} STREQUAL "OFF")
    set(${outvar} OFF PARENT_SCOPE)
  elseif(found)
    set(${outvar} ON PARENT_SCOPE)
  elseif(${name} STREQUAL "ON")
    message(FATAL_ERROR "${name}=ON but the dependency was not found")
  else()
    set(${outvar} OFF PARENT_SCOPE)
  endif()
endfunction()
