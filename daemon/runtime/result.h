/* result.h - the definition behind satin.h's opaque satin_result. */
#ifndef SATIN_RESULT_H
#define SATIN_RESULT_H

#include "satin.h"
#include "satin_kv.h"

struct satin_result {
    satin_kvlist list;
};

#endif
