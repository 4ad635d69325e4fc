/* Found through a relative INCLUDE_DIRECTORIES entry. */
#define OPTIONS_PARAMS_INCLUDED 1
