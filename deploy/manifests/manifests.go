// Package manifests builds Paylane's Kubernetes manifests (deploy/k8s) with
// kustomize and decodes every object strictly into the k8s.io/api types, so
// the tests beside it can check what operators will apply without a
// cluster or network access: unknown or misspelt fields, kinds the API does
// not have, and broken references fail here first.
package manifests

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// Object is one built object, decoded into its k8s.io/api type
// (*appsv1.Deployment, *corev1.Service, ...).
type Object struct {
	GVK       schema.GroupVersionKind
	Name      string
	Namespace string
	Object    runtime.Object
}

// Decoder decodes manifests strictly: unknown and duplicate fields are errors,
// and so is any kind outside the API groups Paylane uses.
type Decoder struct {
	deserializer runtime.Decoder
}

// NewDecoder returns a Decoder for core/v1, apps/v1, autoscaling/v2,
// policy/v1, batch/v1 and networking.k8s.io/v1.
func NewDecoder() (*Decoder, error) {
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		corev1.AddToScheme, appsv1.AddToScheme, autoscalingv2.AddToScheme,
		policyv1.AddToScheme, batchv1.AddToScheme, networkingv1.AddToScheme,
	} {
		if err := add(scheme); err != nil {
			return nil, fmt.Errorf("building scheme: %w", err)
		}
	}
	codecs := serializer.NewCodecFactory(scheme, serializer.EnableStrict)
	return &Decoder{deserializer: codecs.UniversalDeserializer()}, nil
}

// Decode decodes one YAML or JSON document. A strict-decoding problem is an
// error, not a warning.
func (d *Decoder) Decode(doc []byte) (Object, error) {
	obj, gvk, err := d.deserializer.Decode(doc, nil, nil)
	if err != nil {
		return Object{}, fmt.Errorf("decoding: %w", err)
	}
	meta, ok := obj.(interface {
		GetName() string
		GetNamespace() string
	})
	if !ok {
		return Object{}, fmt.Errorf("decoding %s: object has no metadata", gvk)
	}
	return Object{GVK: *gvk, Name: meta.GetName(), Namespace: meta.GetNamespace(), Object: obj}, nil
}

// Build runs `kustomize build dir` on fsys (filesys.MakeFsOnDisk() for the
// repository) and decodes every resulting object.
func Build(fsys filesys.FileSystem, dir string) ([]Object, error) {
	d, err := NewDecoder()
	if err != nil {
		return nil, err
	}
	resources, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(fsys, dir)
	if err != nil {
		return nil, fmt.Errorf("kustomize build %s: %w", dir, err)
	}
	var out []Object
	for _, r := range resources.Resources() {
		doc, err := r.AsYAML()
		if err != nil {
			return nil, fmt.Errorf("kustomize build %s: %s/%s: %w", dir, r.GetKind(), r.GetName(), err)
		}
		obj, err := d.Decode(doc)
		if err != nil {
			return nil, fmt.Errorf("%s: %s/%s: %w", dir, r.GetKind(), r.GetName(), err)
		}
		out = append(out, obj)
	}
	return out, nil
}

// Of returns the objects of type T (for example *appsv1.Deployment).
func Of[T runtime.Object](objs []Object) []T {
	var out []T
	for _, o := range objs {
		if t, ok := o.Object.(T); ok {
			out = append(out, t)
		}
	}
	return out
}
