// SPDX-License-Identifier: GPL-2.0
/*
 * Minimal GEM for scanout buffers: every buffer object is a range of VRAM
 * handed out by drm_mm.  Buffers never move, so they are always "pinned";
 * the pin count only records scanout use.  When VRAM is full, allocation
 * fails with -ENOSPC rather than evicting anybody.
 */
#include <linux/debugfs.h>
#include <linux/io.h>
#include <linux/iosys-map.h>
#include <linux/seq_file.h>
#include <drm/drm_debugfs.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_mode.h>
#include <drm/drm_print.h>

#include "../kms/compat.h"
#include "../kms/kmsvt.h"

/* DISPI wants whole groups of 8 pixels per line; 64 bytes covers any cpp. */
#define KMSVT_PITCH_ALIGN 64

static void kmsvt_gem_free(struct drm_gem_object *obj)
{
	struct kmsvt_device *kdev = to_kmsvt(obj->dev);
	struct kmsvt_bo *bo = to_kmsvt_bo(obj);

	WARN_ON(bo->pin_count);
	mutex_lock(&kdev->vram_lock);
	if (drm_mm_node_allocated(&bo->node)) {
		drm_mm_remove_node(&bo->node);
		kdev->vram_used -= bo->node.size;
	}
	mutex_unlock(&kdev->vram_lock);
	drm_gem_object_release(obj);
	kfree(bo);
}

static int kmsvt_gem_vmap(struct drm_gem_object *obj, struct iosys_map *map)
{
	struct kmsvt_device *kdev = to_kmsvt(obj->dev);

	iosys_map_set_vaddr_iomem(map, kdev->vram + to_kmsvt_bo(obj)->node.start);
	return 0;
}

static int kmsvt_gem_mmap(struct drm_gem_object *obj, struct vm_area_struct *vma)
{
	struct kmsvt_device *kdev = to_kmsvt(obj->dev);
	unsigned long pfn = (kdev->vram_base + to_kmsvt_bo(obj)->node.start) >> PAGE_SHIFT;

	/* vm_pgoff is the fake offset plus, for a dma-buf mmap, the page offset. */
	pfn += vma->vm_pgoff - drm_vma_node_start(&obj->vma_node);
	kmsvt_vm_flags_set(vma, VM_IO | VM_PFNMAP | VM_DONTEXPAND | VM_DONTDUMP);
	vma->vm_page_prot = pgprot_writecombine(vm_get_page_prot(vma->vm_flags));
	return io_remap_pfn_range(vma, vma->vm_start, pfn, vma->vm_end - vma->vm_start,
				  vma->vm_page_prot);
}

static const struct vm_operations_struct kmsvt_gem_vm_ops = {
	.open = drm_gem_vm_open,
	.close = drm_gem_vm_close,
};

static const struct drm_gem_object_funcs kmsvt_gem_funcs = {
	.free = kmsvt_gem_free,
	.vmap = kmsvt_gem_vmap,
	.mmap = kmsvt_gem_mmap,
	.vm_ops = &kmsvt_gem_vm_ops,
};

bool kmsvt_gem_is_ours(const struct drm_gem_object *obj)
{
	return obj->funcs == &kmsvt_gem_funcs;
}

static struct kmsvt_bo *kmsvt_bo_create(struct kmsvt_device *kdev, size_t size)
{
	struct kmsvt_bo *bo;
	int ret;

	size = PAGE_ALIGN(size);
	if (!size || size > kdev->panic_reserve.offset)
		return ERR_PTR(-ENOSPC);

	bo = kzalloc(sizeof(*bo), GFP_KERNEL);
	if (!bo)
		return ERR_PTR(-ENOMEM);
	bo->base.funcs = &kmsvt_gem_funcs;
	drm_gem_private_object_init(&kdev->drm, &bo->base, size);

	mutex_lock(&kdev->vram_lock);
	ret = drm_mm_insert_node_generic(&kdev->vram_mm, &bo->node, size, PAGE_SIZE, 0,
					 DRM_MM_INSERT_BEST);
	if (!ret)
		kdev->vram_used += size;
	mutex_unlock(&kdev->vram_lock);
	if (ret)
		goto err_put;

	ret = drm_gem_create_mmap_offset(&bo->base);
	if (ret)
		goto err_put;

	/* Fresh buffers must not show what a previous owner left in VRAM. */
	memset_io(kdev->vram + bo->node.start, 0, size);
	return bo;

err_put:
	drm_gem_object_put(&bo->base);
	return ERR_PTR(ret);
}

int kmsvt_gem_dumb_create(struct drm_file *file, struct drm_device *drm,
			  struct drm_mode_create_dumb *args)
{
	struct kmsvt_bo *bo;
	u64 pitch, size;
	int ret;

	/* The core already refused zero sizes and 32-bit overflow. */
	pitch = ALIGN((u64)args->width * DIV_ROUND_UP(args->bpp, 8), KMSVT_PITCH_ALIGN);
	size = pitch * args->height;
	if (pitch > U32_MAX || size > to_kmsvt(drm)->vram_size)
		return -ENOSPC;

	bo = kmsvt_bo_create(to_kmsvt(drm), size);
	if (IS_ERR(bo))
		return PTR_ERR(bo);

	ret = drm_gem_handle_create(file, &bo->base, &args->handle);
	if (!ret) {
		args->pitch = pitch;
		args->size = bo->base.size;
	}
	drm_gem_object_put(&bo->base);	/* the handle holds it now */
	return ret;
}

void kmsvt_gem_pin(struct kmsvt_bo *bo)
{
	struct kmsvt_device *kdev = to_kmsvt(bo->base.dev);

	mutex_lock(&kdev->vram_lock);
	bo->pin_count++;
	mutex_unlock(&kdev->vram_lock);
}

void kmsvt_gem_unpin(struct kmsvt_bo *bo)
{
	struct kmsvt_device *kdev = to_kmsvt(bo->base.dev);

	mutex_lock(&kdev->vram_lock);
	if (!WARN_ON(!bo->pin_count))
		bo->pin_count--;
	mutex_unlock(&kdev->vram_lock);
}

void kmsvt_gem_init(struct kmsvt_device *kdev)
{
	mutex_init(&kdev->vram_lock);
	/* The panic buffer at the top of VRAM is not the allocator's. */
	drm_mm_init(&kdev->vram_mm, 0, kdev->panic_reserve.offset);
}

void kmsvt_gem_fini(struct kmsvt_device *kdev)
{
	drm_mm_takedown(&kdev->vram_mm);
	mutex_destroy(&kdev->vram_lock);
}

static int kmsvt_vram_show(struct seq_file *m, void *data)
{
	struct drm_info_node *node = m->private;
	struct kmsvt_device *kdev = to_kmsvt(node->minor->dev);
	struct drm_printer p = drm_seq_file_printer(m);

	mutex_lock(&kdev->vram_lock);
	drm_printf(&p, "vram_size: %llu\nvram_used: %llu\n",
		   (u64)kdev->vram_size, kdev->vram_used);
	drm_mm_print(&kdev->vram_mm, &p);
	mutex_unlock(&kdev->vram_lock);
	return 0;
}

static const struct drm_info_list kmsvt_debugfs_list[] = {
	{ "vram", kmsvt_vram_show, 0 },
};

void kmsvt_gem_debugfs_init(struct drm_minor *minor)
{
	drm_debugfs_create_files(kmsvt_debugfs_list, ARRAY_SIZE(kmsvt_debugfs_list),
				 minor->debugfs_root, minor);
	kmsvt_panic_debugfs_init(to_kmsvt(minor->dev), minor->debugfs_root);
}
