/* SPDX-License-Identifier: MIT */
#include "private.h"
