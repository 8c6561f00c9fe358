/*
 * UUIDs as the tools print them: 8-4-4-4-12 lower-case hex digits, the
 * form nvidia-smi -L and vulkaninfo use, so that they can be compared by
 * eye. libglcuda's own helper, uuid_format(), which the programs link
 * through lib/loader/libglcuda-shared.la.
 * SPDX-License-Identifier: MIT
 */
#ifndef GLCUDA_TOOLS_UUID_H
#define GLCUDA_TOOLS_UUID_H

#include "../lib/uuid.h"

#endif
